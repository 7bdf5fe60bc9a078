import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { InvalidKeyError, type ObjectStorage, SizeMismatchError } from '../src/index.js';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function keysOf(storage: ObjectStorage, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.list(prefix)) keys.push(object.key);
  return keys.sort();
}

/** A stream that gives `bytes` and then fails, as a client's upload cut off half-way. */
function brokenAfter(bytes: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(bytes);
      } else this.destroy(new Error('connection reset'));
    },
  });
}

/**
 * What every storage driver must do, run against each of them (storage.test.ts): the local
 * folder and the S3 driver against a real S3-protocol server.
 */
export function storageContract(name: string, open: () => Promise<{ storage: ObjectStorage; close(): Promise<void> }>) {
  describe(`storage contract: ${name}`, () => {
    let storage: ObjectStorage;
    let close: () => Promise<void>;
    // Every test writes under a prefix of its own.
    const prefix = () => `workspaces/${randomUUID()}/documents/${randomUUID()}/`;

    beforeAll(async () => {
      ({ storage, close } = await open());
      await storage.prepare();
      await storage.prepare(); // twice: a second replica starting finds it made
    });
    afterAll(() => close());

    it('stores bytes under a key and gives them back whole, with their size', async () => {
      const key = `${prefix()}${randomUUID()}/report.bin`;
      const body = randomBytes(300_000);
      await storage.put(
        key,
        Readable.from([body.subarray(0, 1000), body.subarray(1000)]),
        body.length,
        'application/octet-stream',
      );
      const read = await storage.get(key);
      expect(read).not.toBeNull();
      expect((await bytesOf(read as Readable)).equals(body)).toBe(true);
      const info = await storage.stat(key);
      expect(info?.size).toBe(body.length);
      expect(info?.lastModified).toBeInstanceOf(Date);
    });

    it('stores a file from disk; the caller may remove the file afterwards', async () => {
      const key = `${prefix()}${randomUUID()}/spooled.bin`;
      const body = randomBytes(100_000);
      const dir = mkdtempSync(join(tmpdir(), 'storage-spool-'));
      try {
        const path = join(dir, 'upload');
        writeFileSync(path, body);
        await storage.putFile(key, path, body.length, 'application/octet-stream');
        rmSync(path, { force: true });
        expect((await bytesOf((await storage.get(key)) as Readable)).equals(body)).toBe(true);
        // A file whose size is not the one announced is refused.
        writeFileSync(path, body);
        const other = `${prefix()}${randomUUID()}/short.bin`;
        await expect(storage.putFile(other, path, body.length + 1, 'application/octet-stream')).rejects.toThrow();
        expect(await storage.stat(other)).toBeNull();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('gives back a byte range, both ends included', async () => {
      const key = `${prefix()}${randomUUID()}/letters.txt`;
      const body = Buffer.from('abcdefghijklmnopqrstuvwxyz');
      await storage.put(key, Readable.from([body]), body.length, 'text/plain');
      expect(await text((await storage.get(key, { start: 2, end: 5 })) as Readable)).toBe('cdef');
      expect(await text((await storage.get(key, { start: 25, end: 25 })) as Readable)).toBe('z');
      expect(await text((await storage.get(key, { start: 0, end: 25 })) as Readable)).toBe(body.toString());
    });

    it('answers null for a key that holds nothing', async () => {
      const key = `${prefix()}${randomUUID()}/nothing.txt`;
      expect(await storage.get(key)).toBeNull();
      expect(await storage.stat(key)).toBeNull();
    });

    it('deletes an object, and deleting a missing one is no error', async () => {
      const p = prefix();
      const key = `${p}${randomUUID()}/gone.txt`;
      await storage.put(key, Readable.from([Buffer.from('x')]), 1, 'text/plain');
      await storage.delete(key);
      expect(await storage.get(key)).toBeNull();
      expect(await keysOf(storage, p)).toEqual([]);
      await storage.delete(key);
    });

    it('lists the objects under a prefix and none of another', async () => {
      const p = prefix();
      const keys = [`${p}${randomUUID()}/a.txt`, `${p}${randomUUID()}/b.txt`].sort();
      for (const key of keys) await storage.put(key, Readable.from([Buffer.from(key)]), key.length, 'text/plain');
      await storage.put(`${prefix()}${randomUUID()}/other.txt`, Readable.from([Buffer.from('o')]), 1, 'text/plain');
      expect(await keysOf(storage, p)).toEqual(keys);
    });

    it('lists under a prefix that ends inside a name, the way S3 compares keys', async () => {
      const p = prefix();
      const keys = [`${p}x1/a.txt`, `${p}x12/b.txt`].sort();
      for (const key of [...keys, `${p}y/c.txt`]) {
        await storage.put(key, Readable.from([Buffer.from('k')]), 1, 'text/plain');
      }
      expect(await keysOf(storage, `${p}x1`)).toEqual(keys);
    });

    it('goes on listing while the objects it gave are deleted, and gives each once', async () => {
      const p = prefix();
      const keys = Array.from({ length: 40 }, (_, i) => `${p}${String(i).padStart(2, '0')}/${randomUUID()}.txt`);
      for (const key of keys) await storage.put(key, Readable.from([Buffer.from('d')]), 1, 'text/plain');
      const seen: string[] = [];
      for await (const object of storage.list(p)) {
        seen.push(object.key);
        await storage.delete(object.key);
      }
      expect(seen.sort()).toEqual(keys.sort());
      expect(await keysOf(storage, p)).toEqual([]);
    });

    it('keeps nothing of a body that breaks off half-way', async () => {
      const p = prefix();
      const key = `${p}${randomUUID()}/cut.bin`;
      await expect(
        storage.put(key, brokenAfter(randomBytes(10_000)), 20_000, 'application/octet-stream'),
      ).rejects.toThrow();
      expect(await storage.get(key)).toBeNull();
      expect(await keysOf(storage, p)).toEqual([]);
    });

    it('refuses a body longer than announced and keeps nothing of it', async () => {
      const p = prefix();
      const key = `${p}${randomUUID()}/long.bin`;
      await expect(
        storage.put(key, Readable.from([randomBytes(2000)]), 1000, 'application/octet-stream'),
      ).rejects.toThrow(SizeMismatchError);
      expect(await keysOf(storage, p)).toEqual([]);
    });

    it.each([
      ['../escape.txt'],
      ['workspaces/../../escape.txt'],
      ['/etc/passwd'],
      ['workspaces//double.txt'],
      ['workspaces/./dot.txt'],
      ['workspaces\\..\\escape.txt'],
      ['workspaces/nul\u0000.txt'],
      [''],
    ])('refuses the key %j in every operation', async (key) => {
      const body = () => Readable.from([Buffer.from('x')]);
      await expect(storage.put(key, body(), 1, 'text/plain')).rejects.toThrow(InvalidKeyError);
      await expect(storage.get(key)).rejects.toThrow(InvalidKeyError);
      await expect(storage.stat(key)).rejects.toThrow(InvalidKeyError);
      await expect(storage.delete(key)).rejects.toThrow(InvalidKeyError);
    });
  });
}
