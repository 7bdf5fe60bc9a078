// A worker in a process of its own, so that a test can kill it (SIGKILL) in the middle of a job.
// Its configuration comes as JSON in EXPORT_TEST_WORKER; it says "ready" on stdout once listening.
import { startExportWorker } from '../src/queue/worker.js';

const { config, settings, prefix } = JSON.parse(process.env.EXPORT_TEST_WORKER ?? '{}');
const quiet = { info() {}, warn() {}, error() {} };
await startExportWorker({ config, settings, prefix, logger: quiet });
process.stdout.write('ready\n');
