import { constants } from 'node:fs';
import { access, chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaunchOptions, PuppeteerNode } from 'puppeteer-core';

/** Flags every launch gets: no GPU, no background traffic, nothing Chromium would fetch by itself. */
export const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-extensions',
  '--disable-default-apps',
  '--mute-audio',
];

export interface ChromiumLaunchSettings {
  executablePath: string;
  /** Chromium's own sandbox (EXPORT_CHROMIUM_SANDBOX); false launches it with --no-sandbox. */
  sandbox: boolean;
  /** Who runs the browser when this process is root (EXPORT_CHROMIUM_USER). */
  user: { uid: number; gid: number };
  /** A folder of the renderer's own: the profile goes inside, and it is HOME when the user changes. */
  workDir: string;
  /** The export part's environment, handed to the browser (default: the process's). */
  env?: Record<string, string | undefined>;
}

export interface ChromiumLaunch {
  options: LaunchOptions;
  /** What the log says about how the browser is contained. */
  mode: 'sandboxed' | 'sandboxed as another user' | 'unsandboxed';
  uid: number;
}

const SETPRIV_PATHS = ['/usr/bin/setpriv', '/bin/setpriv'];

/**
 * puppeteer-core is loaded by the first PDF, not at start: an export worker that renders no PDF
 * (and every other part of npm start's one process) does not hold it (docs/PERFORMANCE.md, "What
 * each part loads at start"). One import for every caller.
 */
type Puppeteer = Pick<PuppeteerNode, 'launch' | 'defaultArgs'>;
let puppeteerModule: Promise<Puppeteer> | undefined;
export function loadPuppeteer(): Promise<Puppeteer> {
  puppeteerModule ??= import('puppeteer-core').then(({ launch, defaultArgs }) => ({ launch, defaultArgs }));
  return puppeteerModule;
}

async function setprivPath(): Promise<string> {
  for (const path of SETPRIV_PATHS) {
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  throw new Error(
    'running as root with EXPORT_CHROMIUM_SANDBOX on needs setpriv (util-linux) to start Chromium as EXPORT_CHROMIUM_USER',
  );
}

/**
 * How to start Chromium with its sandbox on. Chromium refuses its sandbox to root, so a root
 * process starts it through setpriv as an unprivileged user (its own uid and gid, no supplementary
 * groups, no inheritable capabilities), with a HOME and profile that user owns; any other user
 * starts it directly. The sandbox then puts every renderer in its own user, PID and network
 * namespaces under a seccomp-bpf filter, besides what the page itself is denied (pdf.ts).
 */
export async function chromiumLaunch(settings: ChromiumLaunchSettings): Promise<ChromiumLaunch> {
  const profile = join(settings.workDir, 'profile');
  await mkdir(profile, { recursive: true });
  const env = settings.env ?? process.env;
  const common = { headless: true, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false, env } as const;
  const uid = process.getuid?.() ?? -1;
  if (!settings.sandbox) {
    return {
      options: {
        ...common,
        executablePath: settings.executablePath,
        args: ['--no-sandbox', ...CHROMIUM_ARGS],
        userDataDir: profile,
      },
      mode: 'unsandboxed',
      uid,
    };
  }
  if (uid !== 0) {
    return {
      options: { ...common, executablePath: settings.executablePath, args: CHROMIUM_ARGS, userDataDir: profile },
      mode: 'sandboxed',
      uid,
    };
  }
  const { uid: runAs, gid } = settings.user;
  for (const dir of [settings.workDir, profile]) await chown(dir, runAs, gid);
  // puppeteer starts setpriv, which becomes Chromium (same process): the browser's own flags follow
  // the `--`, and puppeteer appends its debugging port and profile flags after them.
  const puppeteer = await loadPuppeteer();
  const chromeArgs = puppeteer.defaultArgs({ headless: true, userDataDir: profile, args: CHROMIUM_ARGS });
  return {
    options: {
      ...common,
      executablePath: await setprivPath(),
      ignoreDefaultArgs: true,
      args: [
        `--reuid=${runAs}`,
        `--regid=${gid}`,
        '--clear-groups',
        '--inh-caps=-all',
        '--',
        settings.executablePath,
        ...chromeArgs,
      ],
      env: { ...env, HOME: settings.workDir },
    },
    mode: 'sandboxed as another user',
    uid: runAs,
  };
}

/** A launch failure told in terms of the settings that mend it. */
export function explainLaunchFailure(error: unknown): Error {
  const message = (error as Error).message ?? String(error);
  if (/No usable sandbox|namespace|setuid sandbox/i.test(message)) {
    return new Error(
      `Chromium's sandbox could not start (it needs unprivileged user namespaces, which a container's seccomp profile may forbid); allow them or set EXPORT_CHROMIUM_SANDBOX=false (docs/DECISIONS.md): ${message}`,
    );
  }
  return error instanceof Error ? error : new Error(message);
}
