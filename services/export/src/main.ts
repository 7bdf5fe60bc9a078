import { ConfigError } from '@wiki/config';
import { runServiceMain } from '@wiki/service';
import { exportService } from './service.js';
import { loadExportSettings } from './settings.js';

let settings: ReturnType<typeof loadExportSettings>;
try {
  settings = loadExportSettings();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
await runServiceMain(exportService(settings));
