import { runServiceMain } from '@wiki/service';
import { attachmentService } from './service.js';

await runServiceMain(attachmentService);
