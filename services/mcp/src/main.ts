import { runServiceMain } from '@wiki/service';
import { mcpService } from './service.js';

await runServiceMain(mcpService);
