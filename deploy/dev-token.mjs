// `npm run token` for containers, which have no TypeScript runner: prints a dev access token
// signed with the key pair in DATA_DIR, when AUTH_PROVIDER=dev. Run it in the gateway's container:
//   docker compose exec gateway node deploy/dev-token.mjs alice@example.com [name]
import { loadAuthSettings, mintDevToken } from '@wiki/auth';
import { configOrExit, loadConfigOrExit } from '@wiki/config';

const [email, ...nameWords] = process.argv.slice(2);
if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
  process.stderr.write('usage: node deploy/dev-token.mjs <email> [name]\n');
  process.exit(2);
}
const config = loadConfigOrExit();
const auth = configOrExit(() => loadAuthSettings(process.env));
if (auth.provider !== 'dev') {
  process.stderr.write(`AUTH_PROVIDER is "${auth.provider}": get a token from your identity provider.\n`);
  process.exit(1);
}
process.stdout.write(`${await mintDevToken(config.dataDir, email, nameWords.join(' ').trim() || undefined)}\n`);
