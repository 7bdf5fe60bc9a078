import { createHash, randomUUID } from 'node:crypto';

/** The namespace of the import's name-based UUIDs (RFC 9562 version 5); any fixed UUID would do. */
const NAMESPACE = Buffer.from('6b1f1c0e4d2a4f7e9a3c5d8e0f1a2b3c', 'hex');

/**
 * A planned document's or attachment's key: a version-5 UUID of (seed, kind, archive path). The
 * same upload planned with the same seed (the job's id) gives the same keys, so a job that runs
 * again plans the very same tree, and the creation step can use the keys as the new ids.
 */
export function plannedKey(seed: string, kind: 'document' | 'attachment', name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`${seed}\u0000${kind}\u0000${name}`, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A seed for a plan nobody asked to repeat: its keys are then as unique as random UUIDs. */
export const randomSeed = (): string => randomUUID();
