import { servicePart } from '@wiki/service';
import { documentService } from './service.js';

/** This service as a part of a process: run alone by main.ts, or in npm start's one process. */
export const part = servicePart(documentService);
