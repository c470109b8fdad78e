// Launching Debian's Chromium through playwright-core (no browser download).
import { chromium } from 'playwright-core';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = process.env.STC_CHROMIUM || '/usr/bin/chromium';

/**
 * Launches headless Chromium with a fresh profile directory (playwright takes
 * it as launchPersistentContext's userDataDir); resolves to { context, close() }.
 */
export async function launch() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium chromium-driver), as test.sh does`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'stc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
      '--no-first-run', '--disable-component-update', '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
