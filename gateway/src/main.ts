import { runMain } from '@wiki/http';
import { part } from './part.js';

await runMain(part);
