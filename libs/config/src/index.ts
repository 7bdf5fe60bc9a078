export { ConfigError } from './config-error.js';
export {
  type EnvVar,
  envVar,
  flag,
  listItems,
  matching,
  oneOf,
  optionalWholeNumber,
  redactUrl,
  refuse,
  text,
  url,
  urlValue,
  wholeNumber,
} from './env-vars.js';
export { type ListenAddress, listenAddresses, METRICS_PORT_OFFSET } from './listen-addresses.js';
export { isProduction } from './node-env.js';
export { configOrExit, loadConfigOrExit } from './or-exit.js';
export { KNOWN_PLACEHOLDERS, PRODUCTION_SECRET_MIN_LENGTH, weakSecretReason } from './production-secrets.js';
export { type Env, type EnvSchema, readEnv, type SettingsOf } from './read-env.js';
export { DEFAULT_SERVICE_PORTS, SERVICE_NAMES, type ServiceName } from './service-names.js';
export { type Config, databaseUrl, loadConfig, repoRoot } from './shared-config.js';
