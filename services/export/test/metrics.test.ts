import type { Stack } from '@wiki/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefixOf } from '../src/app.js';
import { QUEUE_NAME, redisOptions } from '../src/queue/jobs.js';
import { startExportStack } from './helpers.js';

let stack: Stack;
let queue: Queue;

beforeAll(async () => {
  // The API alone: no worker takes the jobs, so they stay waiting while the test reads them.
  stack = await startExportStack({ role: 'api' });
  queue = new Queue(QUEUE_NAME, {
    connection: redisOptions(stack.config.redisUrl),
    prefix: queuePrefixOf(stack.config, {}),
  });
});
afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await stack?.stop();
});

async function sample(state: string): Promise<number | undefined> {
  const res = await fetch(`${stack.metricsUrls.export}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const match = new RegExp(`^export_queue_jobs\\{[^}]*state="${state}"[^}]*\\} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

describe('GET /metrics of the export API', () => {
  it('shows the queue depth by state', async () => {
    expect(await sample('waiting')).toBe(0);
    await queue.add('render', { test: true } as never);
    await queue.add('render', { test: true } as never);
    expect(await sample('waiting')).toBe(2);
    expect(await sample('active')).toBe(0);
  });
});
