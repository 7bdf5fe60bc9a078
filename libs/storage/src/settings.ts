import { join, resolve } from 'node:path';
import { type Config, ConfigError, oneOf, readEnv, text, url } from '@wiki/config';

/** Where objects are kept (ARCHITECTURE 5.9): read by the parts that keep them (attachment, export). */
export interface StorageSettings {
  /** STORAGE_DRIVER: local (default) or s3. */
  driver: 'local' | 's3';
  /** STORAGE_LOCAL_DIR: the local driver's folder (default `<DATA_DIR>/objects`). */
  localDir: string;
  /** S3_ENDPOINT: required with the s3 driver. */
  s3Endpoint?: string;
  /** S3_BUCKET (default wiki). */
  s3Bucket: string;
  s3AccessKey?: string;
  s3SecretKey?: string;
  /** S3_REGION (default us-east-1). */
  s3Region: string;
}

/** A bad value names its variable (ConfigError). */
export function loadStorageSettings(config: Pick<Config, 'env' | 'dataDir'>): StorageSettings {
  const read = readEnv(config.env, {
    STORAGE_DRIVER: oneOf(['local', 's3'] as const, 'local'),
    S3_ENDPOINT: url(['http:', 'https:']),
    STORAGE_LOCAL_DIR: text(join(config.dataDir, 'objects')),
    S3_BUCKET: text('wiki'),
    S3_ACCESS_KEY: text(),
    S3_SECRET_KEY: text(),
    S3_REGION: text('us-east-1'),
  });
  if (read.STORAGE_DRIVER === 's3' && !read.S3_ENDPOINT) {
    throw new ConfigError('S3_ENDPOINT', 'is required when STORAGE_DRIVER=s3');
  }
  return {
    driver: read.STORAGE_DRIVER,
    localDir: resolve(read.STORAGE_LOCAL_DIR),
    s3Endpoint: read.S3_ENDPOINT,
    s3Bucket: read.S3_BUCKET,
    s3AccessKey: read.S3_ACCESS_KEY,
    s3SecretKey: read.S3_SECRET_KEY,
    s3Region: read.S3_REGION,
  };
}
