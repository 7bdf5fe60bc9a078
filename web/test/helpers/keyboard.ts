import type { Page } from 'puppeteer-core';

/** What has the keyboard focus: its tag, explicit role and accessible name (as assistive technology gets it). */
export async function focused(page: Page): Promise<{ tag: string; role: string | null; name: string }> {
  const handle = await page.evaluateHandle('document.activeElement');
  try {
    const element = handle.asElement();
    if (!element) return { tag: '', role: null, name: '' };
    const node = await page.accessibility.snapshot({ root: element as never, interestingOnly: false });
    const { tag, role } = (await element.evaluate((e: any) => ({
      tag: e.tagName.toLowerCase(),
      role: e.getAttribute('role'),
    }))) as { tag: string; role: string | null };
    return { tag, role, name: node?.name ?? '' };
  } finally {
    await handle.dispose();
  }
}

/**
 * Presses Tab (as a person would, from wherever the focus is) until the focused element's
 * accessible name is `name`; fails after `max` presses, naming what it went through.
 */
export async function tabTo(page: Page, name: string, max = 40): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    if (now.name === name) return;
    seen.push(now.name || `<${now.tag}>`);
  }
  throw new Error(`Tab never reached "${name}"; it went through: ${seen.join(' | ')}`);
}

/** Waits until the page's path (and query) is `path`. */
export async function waitForPath(page: Page, path: string, timeout = 10_000): Promise<void> {
  await page.waitForFunction(`location.pathname + location.search === ${JSON.stringify(path)}`, { timeout });
}

/** The page's path now. */
export async function pathOf(page: Page): Promise<string> {
  return (await page.evaluate('location.pathname + location.search')) as string;
}

/** The accessible names of the page's elements of `role`, in document order (as an outside check reads them). */
export async function accessibleNames(page: Page, role: string): Promise<string[]> {
  const names: string[] = [];
  const walk = (node: Awaited<ReturnType<Page['accessibility']['snapshot']>>) => {
    if (!node) return;
    if (node.role === role) names.push(node.name ?? '');
    for (const child of node.children ?? []) walk(child);
  };
  walk(await page.accessibility.snapshot());
  return names;
}
