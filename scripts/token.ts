// `npm run token -- <email> [name]`: prints an access token for the dev identity provider
// (AUTH_PROVIDER=dev), signed with the key pair in DATA_DIR that the gateway trusts.
// Only the token goes to stdout, so `TOKEN=$(npm run -s token -- alice@example.com)` works.
import { type AuthSettings, loadAuthSettings, mintDevToken } from '@wiki/auth';
import { type Config, ConfigError, loadConfig } from '@wiki/config';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function exit(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const [email, ...nameWords] = process.argv.slice(2);
if (!email || !EMAIL.test(email)) exit('usage: npm run token -- <email> [name]', 2);

let config: Config;
let auth: AuthSettings;
try {
  config = loadConfig();
  auth = loadAuthSettings(process.env);
} catch (error) {
  if (error instanceof ConfigError) exit(error.message, 78);
  throw error;
}
if (auth.provider !== 'dev') {
  exit(
    `npm run token only works with AUTH_PROVIDER=dev (it is "${auth.provider}"): ` +
      'get a token from your identity provider instead.',
    1,
  );
}

const name = nameWords.join(' ').trim() || undefined;
process.stdout.write(`${await mintDevToken(config.dataDir, email, name)}\n`);
