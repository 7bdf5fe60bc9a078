import { runServiceMain } from '@wiki/service';
import { collabService } from './service.js';

await runServiceMain(collabService);
