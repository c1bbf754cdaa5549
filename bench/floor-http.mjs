// The HTTP floor: the least a Node HTTP server can do per request. It reads the body and answers
// `{}` with a Content-Length, on 127.0.0.1 and a free port. It must never parse or decide anything.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stderr.write(`floor: listening on http://127.0.0.1:${port}/\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
