#!/usr/bin/env node
// The entry point by its old path (dist/main.js), for whoever runs the server as `node dist/main.js`:
// it only loads the real entry, main.cts (dist/main.cjs, the package's bin). Nothing else lives here.
import './main.cjs';
