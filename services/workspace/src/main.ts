import { runServiceMain } from '@wiki/service';
import { workspaceService } from './service.js';

await runServiceMain(workspaceService);
