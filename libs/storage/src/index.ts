import type { Config } from '@wiki/config';
import { LocalStorage } from './local.js';
import { loadStorageSettings } from './settings.js';
import type { ObjectStorage } from './storage.js';

export { LocalStorage } from './local.js';
export { loadStorageSettings, type StorageSettings } from './settings.js';
export * from './storage.js';

/**
 * The driver STORAGE_DRIVER names (ARCHITECTURE 5.9; settings.ts). The S3 driver (the minio client and its
 * dependencies, ~40 MiB of RSS) is loaded only when it is the one configured.
 */
export async function createStorage(config: Pick<Config, 'env' | 'dataDir'>): Promise<ObjectStorage> {
  const s = loadStorageSettings(config);
  if (s.driver === 's3') {
    const { S3Storage } = await import('./s3.js');
    return new S3Storage({
      endpoint: s.s3Endpoint as string,
      bucket: s.s3Bucket,
      accessKey: s.s3AccessKey,
      secretKey: s.s3SecretKey,
      region: s.s3Region,
    });
  }
  return new LocalStorage(s.localDir);
}
