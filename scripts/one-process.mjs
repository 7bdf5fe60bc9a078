#!/usr/bin/env node
// npm start's one process (its default mode): the gateway and every service started here, each on
// its own port with its own configuration, database pool, NATS consumers, metrics, tracer and logs
// (libs/http startParts); they still talk only over HTTP and NATS. Started by scripts/start.mjs,
// which passes the parts in NPM_START_PARTS: for each, its name, the module that describes it
// (dist/part.js) and how its environment differs from this process's (`set`, `unset`), computed
// as it would be for a process of its own.
import { runParts } from '@wiki/http';

const listed = process.env.NPM_START_PARTS;
if (!listed) {
  process.stderr.write('one-process.mjs: NPM_START_PARTS is not set; it is started by npm start.\n');
  process.exit(2);
}
const base = { ...process.env };
delete base.NPM_START_PARTS;

const parts = [];
// One after the other: Node 20 fails an ES module required from CommonJS (slonik requires p-limit)
// while a concurrent import is still loading it.
for (const { name, module, set = {}, unset = [] } of JSON.parse(listed)) {
  // Each part's own environment object: nothing is written to process.env per part.
  const env = { ...base, ...set };
  for (const key of unset) delete env[key];
  const { part } = await import(module);
  parts.push({ name, main: part, env });
}
await runParts(parts);
