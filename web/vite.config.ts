import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The gateway serves dist/ at `/` (ARCHITECTURE 5.17); `npm run dev -w web` proxies the API and
// /collab to a gateway started by `npm start` (GATEWAY_URL, default its port 3000).
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 2000 },
  server: {
    proxy: {
      '/api': gateway,
      '/auth/config': gateway,
      '/auth/dev': gateway,
      '/collab': { target: gateway.replace(/^http/, 'ws'), ws: true },
    },
  },
});
