import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { chromiumLaunch, explainLaunchFailure, loadPuppeteer } from './chromium-launch.js';

/** A render that overran its time: its page was thrown away. */
export class RenderTimeoutError extends Error {
  override name = 'RenderTimeoutError';
  constructor(ms: number) {
    super(`the render took longer than ${ms} ms`);
  }
}

export interface PdfRendererOptions {
  /** Debian's Chromium by default (CHROMIUM_PATH). */
  executablePath: string;
  /** How long one render may take before its page is thrown away and the render fails. */
  renderTimeoutMs: number;
  /** Idle pages kept for reuse (the worker's concurrency). */
  maxIdlePages: number;
  /** Chromium's own sandbox (EXPORT_CHROMIUM_SANDBOX, default on; see chromium-launch.ts). */
  sandbox?: boolean;
  /** Who runs the browser when this process is root (EXPORT_CHROMIUM_USER, default nobody). */
  user?: { uid: number; gid: number };
  /** The export part's environment, handed to the browser (default: the process's). */
  env?: Record<string, string | undefined>;
  logger?: { info?(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

/**
 * Prints HTML to PDF with one Chromium per worker, launched on first use and kept; pages are
 * reused between renders (a fresh page costs more than the print). A page that crashes or does not
 * finish in time is closed and replaced; a browser that dies is launched again on the next render,
 * so the worker itself never needs a restart.
 */
export class PdfRenderer {
  private browser: Promise<Browser> | undefined;
  private readonly idle: Page[] = [];
  private userDataDir: string | undefined;
  private closed = false;

  constructor(private readonly options: PdfRendererOptions) {}

  private launch(): Promise<Browser> {
    this.browser ??= (async () => {
      this.userDataDir ??= await mkdtemp(join(tmpdir(), 'wiki-export-chromium-'));
      const plan = await chromiumLaunch({
        executablePath: this.options.executablePath,
        sandbox: this.options.sandbox ?? true,
        user: this.options.user ?? { uid: 65534, gid: 65534 },
        workDir: this.userDataDir,
        env: this.options.env,
      });
      const puppeteer = await loadPuppeteer();
      const browser = await puppeteer.launch(plan.options).catch((error) => {
        throw explainLaunchFailure(error);
      });
      const said = { pid: browser.process()?.pid, uid: plan.uid, mode: plan.mode };
      if (plan.mode === 'unsandboxed') this.options.logger?.warn(said, 'Chromium runs without its sandbox');
      else this.options.logger?.info?.(said, 'Chromium runs with its sandbox');
      browser.once('disconnected', () => {
        // The next render launches a new one; the dead browser's pages go with it.
        this.idle.length = 0;
        this.browser = undefined;
      });
      return browser;
    })().catch((error) => {
      this.browser = undefined;
      throw error;
    });
    return this.browser;
  }

  /** Starts the browser ahead of the first job (a warm first export). */
  async warm(): Promise<void> {
    await this.launch();
  }

  private async newPage(): Promise<Page> {
    const browser = await this.launch();
    const page = await browser.newPage();
    // A page that crashes while idle must not be handed out again.
    page.once('error', () => {
      const at = this.idle.indexOf(page);
      if (at !== -1) this.idle.splice(at, 1);
      void page.close().catch(() => undefined);
    });
    await page.setJavaScriptEnabled(false);
    await page.setRequestInterception(true);
    // Only the inlined images (data: URLs) load; everything else (http, file, ws, ...) is refused
    // before it leaves the browser, whatever the HTML says.
    page.on('request', (request: HTTPRequest) => {
      if (request.isInterceptResolutionHandled()) return;
      if (request.url().startsWith('data:')) void request.continue().catch(() => undefined);
      else void request.abort('blockedbyclient').catch(() => undefined);
    });
    return page;
  }

  private async acquire(): Promise<Page> {
    for (let page = this.idle.pop(); page; page = this.idle.pop()) {
      if (!page.isClosed()) return page;
    }
    return this.newPage();
  }

  private release(page: Page): void {
    if (this.closed || page.isClosed() || this.idle.length >= this.options.maxIdlePages) {
      void page.close().catch(() => undefined);
      return;
    }
    this.idle.push(page);
  }

  /**
   * One PDF. A failure (crash, timeout) discards the page it used; the next render gets a good one.
   * When the browser itself died under the render, it is launched again and the render tried once more.
   */
  async render(html: string, options: { timeoutMs?: number } = {}): Promise<Uint8Array> {
    if (this.closed) throw new Error('the PDF renderer is closed');
    const browser = await this.launch();
    try {
      return await this.renderOnce(html, options);
    } catch (error) {
      // A stuck render is not tried again here (the job's retry decides); a crash is, once: the
      // page (reused, perhaps crashed while idle) is gone, and a dead browser is replaced.
      if (error instanceof RenderTimeoutError || this.closed) throw error;
      if (!browser.connected) {
        this.options.logger?.warn({ err: error }, 'Chromium died during a render; launching it again');
        if (this.browser && (await this.browser) === browser) this.browser = undefined;
        this.idle.length = 0;
      }
      return this.renderOnce(html, options);
    }
  }

  private async renderOnce(html: string, options: { timeoutMs?: number }): Promise<Uint8Array> {
    const timeoutMs = options.timeoutMs ?? this.options.renderTimeoutMs;
    const page = await this.acquire();
    let healthy = false;
    const crashed = new Promise<never>((_, reject) => {
      page.once('error', (error) => reject(new Error(`the page crashed: ${error.message}`)));
    });
    crashed.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RenderTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      const work = (async () => {
        await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
        return page.pdf({
          format: 'A4',
          printBackground: true,
          preferCSSPageSize: true,
          // A tagged PDF with an outline: the headings become bookmarks a reader can navigate.
          tagged: true,
          outline: true,
          timeout: timeoutMs,
        });
      })();
      work.catch(() => undefined);
      const pdf = await Promise.race([work, crashed, stuck]);
      healthy = true;
      return pdf;
    } finally {
      clearTimeout(timer);
      if (healthy) this.release(page);
      else {
        this.options.logger?.warn({}, 'a PDF page failed and was replaced');
        void page.close().catch(() => undefined);
      }
    }
  }

  /** For tests: the browser's DevTools endpoint, to crash one of its pages from outside. */
  async browserEndpoint(): Promise<string> {
    return (await this.launch()).wsEndpoint();
  }

  /** For tests and operators: the browser process, to see it recover when it dies. */
  async browserProcessId(): Promise<number | undefined> {
    return (await this.launch()).process()?.pid;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
    if (this.userDataDir) await rm(this.userDataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}
