import { z } from 'zod';

/** One environment variable's reading in a schema (read-env.ts): its raw text to a setting. */
export type EnvVar<T> = z.ZodType<T, z.ZodTypeDef, string | undefined>;

/** Thrown by `refuse`: turned into the schema's issue for the variable being read. */
class Refused extends Error {}

/** Refuses the value being read; the message follows the variable's name ("must be ..."). */
export function refuse(message: string): never {
  throw new Refused(message);
}

/**
 * A variable read by `read`, which gets its raw value (unset and empty alike are undefined) and
 * may `refuse` it. The building block of the readings below and of a part's own ones.
 */
export function envVar<T>(read: (raw: string | undefined) => T): EnvVar<T> {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return read(value === '' ? undefined : value);
      } catch (error) {
        if (!(error instanceof Refused)) throw error;
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: error.message });
        return z.NEVER;
      }
    });
}

/** Text as it is; `fallback` when unset. */
export function text(fallback: string): EnvVar<string>;
export function text(): EnvVar<string | undefined>;
export function text(fallback?: string): EnvVar<string | undefined> {
  return envVar((raw) => raw ?? fallback);
}

/** A whole number within [min, max]. */
export function wholeNumber(fallback: number, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): EnvVar<number> {
  return envVar((raw) => (raw === undefined ? fallback : wholeNumberValue(raw, min, max)));
}

/** Like `wholeNumber`, but undefined when unset. */
export function optionalWholeNumber({ min = 0, max = Number.MAX_SAFE_INTEGER } = {}): EnvVar<number | undefined> {
  return envVar((raw) => (raw === undefined ? undefined : wholeNumberValue(raw, min, max)));
}

function wholeNumberValue(raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim())) refuse(`must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) refuse(`must be between ${min} and ${max}, got ${value}`);
  return value;
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

/** true/1/yes/on or false/0/no/off, in any case. */
export function flag(fallback: boolean): EnvVar<boolean> {
  return envVar((raw) => {
    if (raw === undefined) return fallback;
    const value = raw.trim().toLowerCase();
    if (TRUE.includes(value)) return true;
    if (FALSE.includes(value)) return false;
    return refuse(`must be true or false, got "${raw}"`);
  });
}

/** One of `values`, exactly. */
export function oneOf<T extends string>(values: readonly T[], fallback: T): EnvVar<T> {
  return envVar((raw) => {
    if (raw === undefined) return fallback;
    if (!values.includes(raw as T)) refuse(`must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  });
}

/** Text that `pattern` accepts, described as `what` when it does not. */
export function matching(pattern: RegExp, what: string, fallback: string): EnvVar<string>;
export function matching(pattern: RegExp, what: string): EnvVar<string | undefined>;
export function matching(pattern: RegExp, what: string, fallback?: string): EnvVar<string | undefined> {
  return envVar((raw) => {
    const value = raw ?? fallback;
    if (value !== undefined && !pattern.test(value)) refuse(`must be ${what}, got "${value}"`);
    return value;
  });
}

/** A URL with one of `protocols` (e.g. `['http:', 'https:']`), trailing slashes dropped. */
export function url(protocols: readonly string[], fallback: string): EnvVar<string>;
export function url(protocols: readonly string[], fallback?: string): EnvVar<string | undefined>;
export function url(protocols: readonly string[], fallback?: string): EnvVar<string | undefined> {
  return envVar((raw) => {
    const value = raw ?? fallback;
    return value === undefined ? undefined : urlValue(value, protocols);
  });
}

/** Checks one URL as `url` does; for readings made of several (a comma-separated list). */
export function urlValue(raw: string, protocols: readonly string[]): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    refuse(`must be a URL, got "${redactUrl(raw)}"`);
  }
  if (!protocols.includes(parsed.protocol)) refuse(`must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  return raw.replace(/\/+$/, '');
}

/** The comma-separated items of a list, trimmed, empty ones and repeats dropped. */
export function listItems(raw: string): string[] {
  return [
    ...new Set(
      raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
}

/** Hides the password of a connection URL so it can be logged or shown in errors. */
export function redactUrl(value: string): string {
  return value.replace(/\/\/([^:/@]+):([^@/]+)@/, '//$1:***@');
}
