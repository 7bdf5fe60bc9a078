import { runServiceMain } from '@wiki/service';
import { documentService } from './service.js';

await runServiceMain(documentService);
