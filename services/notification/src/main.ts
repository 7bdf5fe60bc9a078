import { runServiceMain } from '@wiki/service';
import { notificationService } from './service.js';

await runServiceMain(notificationService);
