import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import { assertSafeKey, type ByteRange, type ObjectStorage, SizeMismatchError, type StoredObject } from './storage.js';

export interface S3Settings {
  endpoint: string;
  bucket: string;
  accessKey?: string;
  secretKey?: string;
  region: string;
}

const MISSING = new Set(['NoSuchKey', 'NotFound', 'NoSuchObject']);
const isMissing = (error: unknown) => MISSING.has((error as { code?: string }).code ?? '');

/**
 * STORAGE_DRIVER=s3: any S3-compatible store (MinIO, AWS S3, Ceph...) through the minio client,
 * path-style addressing so that a plain endpoint URL works without bucket DNS names.
 */
export class S3Storage implements ObjectStorage {
  readonly driver = 's3' as const;
  private readonly client: Client;
  private readonly bucket: string;
  private readonly region: string;

  constructor(settings: S3Settings) {
    const url = new URL(settings.endpoint);
    const useSSL = url.protocol === 'https:';
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: settings.accessKey ?? '',
      secretKey: settings.secretKey ?? '',
      region: settings.region,
      pathStyle: true,
    });
    this.bucket = settings.bucket;
    this.region = settings.region;
  }

  async prepare(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) {
      try {
        await this.client.makeBucket(this.bucket, this.region);
      } catch (error) {
        // Another replica made it meanwhile.
        const code = (error as { code?: string }).code;
        if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw error;
      }
    }
  }

  async check(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) throw new Error(`bucket ${this.bucket} does not exist`);
  }

  async put(key: string, body: Readable, size: number, contentType: string): Promise<void> {
    assertSafeKey(key);
    let seen = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > size) return done(new SizeMismatchError(size, seen));
        done(null, chunk);
      },
    });
    // Errors of the source reach the client through `counted`, which the pipeline destroys with them.
    pipeline(body, counted).catch(() => undefined);
    await this.client.putObject(this.bucket, key, counted, size, { 'Content-Type': contentType });
    // A source shorter than announced must not stay behind as a short object.
    if (seen !== size) {
      await this.delete(key).catch(() => undefined);
      throw new SizeMismatchError(size, seen);
    }
  }

  async putFile(key: string, path: string, size: number, contentType: string): Promise<void> {
    const actual = (await stat(path)).size;
    if (actual !== size) throw new SizeMismatchError(size, actual);
    await this.put(key, createReadStream(path), size, contentType);
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    assertSafeKey(key);
    try {
      return range
        ? await this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1)
        : await this.client.getObject(this.bucket, key);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertSafeKey(key);
    try {
      const info = await this.client.statObject(this.bucket, key);
      return { key, size: info.size, lastModified: info.lastModified };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.removeObject(this.bucket, key);
  }

  async *list(prefix = ''): AsyncIterable<StoredObject> {
    // The client's stream asks for the next page (1,000 keys) only once the last one was read.
    const stream = this.client.listObjectsV2(this.bucket, prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string; size: number; lastModified: Date }>) {
      if (item.name) yield { key: item.name, size: item.size, lastModified: item.lastModified };
    }
  }
}
