// An S3-protocol server (s3rver) in a process of its own, for the orphan-sweep rows: its memory is
// not the sweep's. PORT and S3RVER_DIR come from the environment.
import S3rver from 's3rver';

const server = new S3rver({
  address: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  silent: true,
  directory: process.env.S3RVER_DIR,
});
await server.run();
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
