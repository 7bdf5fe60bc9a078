import { runServiceMain } from '@wiki/service';
import { exportServiceDefinition } from './service.js';

await runServiceMain(exportServiceDefinition);
