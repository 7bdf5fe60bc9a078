import { runServiceMain } from '@wiki/service';
import { searchService } from './service.js';

await runServiceMain(searchService);
