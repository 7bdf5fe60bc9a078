import { runServiceMain } from '@wiki/service';
import { commentService } from './service.js';

await runServiceMain(commentService);
