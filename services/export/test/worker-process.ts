// A worker in a process of its own, so that a test can kill it (SIGKILL) in the middle of a job, or
// measure the API without the worker's memory. Its configuration comes as JSON in
// EXPORT_TEST_WORKER; it says "ready" on stdout once listening. With `noiseImages` (width, height),
// every image a document names is such a PNG of random pixels (incompressible: a large export).
import { noisePng } from '@wiki/testing';
import { startExportWorker } from '../src/queue/worker.js';

const { config, settings, prefix, noiseImages } = JSON.parse(process.env.EXPORT_TEST_WORKER ?? '{}');
const quiet = { info() {}, warn() {}, error() {} };
if (noiseImages) settings.images = { load: async () => noisePng(noiseImages.width, noiseImages.height) };
await startExportWorker({ config, settings, prefix, logger: quiet });
process.stdout.write('ready\n');
