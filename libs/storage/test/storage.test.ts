import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../src/index.js';
import { S3Storage } from '../src/s3.js';
import { S3RVER_KEY, startTestS3 } from './s3-server.js';
import { storageContract } from './storage-contract.js';

storageContract('local', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'storage-objects-'));
  return {
    storage: new LocalStorage(join(dir, 'objects')),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

storageContract('s3 (s3rver on loopback)', async () => {
  const s3 = await startTestS3();
  const storage = new S3Storage({
    endpoint: s3.endpoint,
    bucket: 'contract',
    accessKey: S3RVER_KEY,
    secretKey: S3RVER_KEY,
    region: 'us-east-1',
  });
  return { storage, close: () => s3.close() };
});
