import { servicePart } from '@wiki/service';
import { workspaceService } from './service.js';

/** This service as a part of a process: run alone by main.ts, or in npm start's one process. */
export const part = servicePart(workspaceService);
