import { join } from 'node:path';
import { ConfigError } from '@wiki/config';
import { describe, expect, it } from 'vitest';
import { loadStorageSettings } from './settings.js';

const settingsOf = (env: Record<string, string>) => loadStorageSettings({ env, dataDir: '/data' });

describe('storage settings', () => {
  it('default to the local driver under DATA_DIR/objects', () => {
    expect(settingsOf({})).toEqual({
      driver: 'local',
      localDir: join('/data', 'objects'),
      s3Endpoint: undefined,
      s3Bucket: 'wiki',
      s3AccessKey: undefined,
      s3SecretKey: undefined,
      s3Region: 'us-east-1',
    });
    expect(settingsOf({ STORAGE_LOCAL_DIR: '/srv/objects' }).localDir).toBe('/srv/objects');
  });

  it('read the S3 driver', () => {
    expect(
      settingsOf({
        STORAGE_DRIVER: 's3',
        S3_ENDPOINT: 'http://minio:9000/',
        S3_BUCKET: 'b',
        S3_ACCESS_KEY: 'k',
        S3_SECRET_KEY: 's',
        S3_REGION: 'eu',
      }),
    ).toMatchObject({ driver: 's3', s3Endpoint: 'http://minio:9000', s3Bucket: 'b', s3AccessKey: 'k', s3Region: 'eu' });
  });

  it.each([
    [{ STORAGE_DRIVER: 'gcs' }, 'STORAGE_DRIVER'],
    [{ STORAGE_DRIVER: 's3' }, 'S3_ENDPOINT'],
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
  ])('names the variable of a bad value: %o', (env, variable) => {
    expect(() => settingsOf(env)).toThrow(ConfigError);
    expect(() => settingsOf(env)).toThrow(variable);
  });
});
