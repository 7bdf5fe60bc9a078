// Docker HEALTHCHECK of the image: exits 0 when this container's part answers GET /health/ready.
// The part is WIKI_SERVICE (set by deploy/Dockerfile); its port comes from the same variables
// the part reads (PORT for the gateway, <SERVICE>_PORT for a service).
import { DEFAULT_SERVICE_PORTS } from '@wiki/config';

const service = process.env.WIKI_SERVICE ?? 'gateway';
const fromEnv = service === 'gateway' ? process.env.PORT : process.env[`${service.toUpperCase()}_PORT`];
const port = Number(fromEnv || (service === 'gateway' ? 8080 : DEFAULT_SERVICE_PORTS[service]));

try {
  const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2500) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
