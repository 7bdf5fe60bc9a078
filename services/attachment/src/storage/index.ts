import type { Config } from '@wiki/config';
import { LocalStorage } from './local.js';
import { S3Storage } from './s3.js';
import type { ObjectStorage } from './storage.js';

export { LocalStorage } from './local.js';
export { S3Storage } from './s3.js';
export * from './storage.js';

/** The driver STORAGE_DRIVER names (ARCHITECTURE 5.9). */
export function createStorage(config: Pick<Config, 'storage'>): ObjectStorage {
  const s = config.storage;
  if (s.driver === 's3') {
    if (!s.s3Endpoint) throw new Error('S3_ENDPOINT is required when STORAGE_DRIVER=s3');
    return new S3Storage({
      endpoint: s.s3Endpoint,
      bucket: s.s3Bucket,
      accessKey: s.s3AccessKey,
      secretKey: s.s3SecretKey,
      region: s.s3Region,
    });
  }
  return new LocalStorage(s.localDir);
}
