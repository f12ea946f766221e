import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

/**
 * An automated accessibility audit (issue 36): axe-core, run in the page Chromium shows, with
 * the WCAG 2.0 and 2.1 A and AA rules (contrast, names and labels, landmarks, ARIA). A finding of
 * serious or critical impact fails the test that reached the state; lesser ones are not counted.
 * axe-core is the audit engine browsers' own tools and most CI audits use; it runs in the page,
 * so the page is audited as drawn (its theme, its charts' canvases, its tables).
 */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface Finding {
  rule: string;
  impact: string;
  help: string;
  /** Where, as axe's CSS selectors of the first few elements. */
  at: string[];
}

/**
 * Audits made by this test process, by the state they audited. The browser tests audit every
 * state they reach, and most sign in anew for each test: the same sign-in card and home page were
 * audited dozens of times a file, each first audit of a page also loading axe-core (650 kB, about
 * half a second of a core). A state is what axe-core's findings depend on: the document as drawn
 * (markup, form controls' values and checks, the style sheets' rules), where it is served from,
 * the viewport, zoom, colour scheme, scroll and focus. `audits` counts the ones run.
 */
const audited = new Map<string, Finding[]>();
export const audits = { run: 0, remembered: 0 };

/** The state an audit of `target` depends on, hashed (see `audited`). */
async function stateOf(target: Page | Frame): Promise<string> {
  const state = await target.evaluate(() => {
    const rules = [...document.styleSheets].map((sheet) => {
      try {
        return [...sheet.cssRules].map((rule) => rule.cssText).join('\n');
      } catch {
        return sheet.href; // another origin's sheet: its rules are not readable here
      }
    });
    const controls = [...document.querySelectorAll('input, select, textarea')].map((control) => {
      const field = control as HTMLInputElement;
      return [field.value, field.checked];
    });
    const focused = document.activeElement;
    return JSON.stringify([
      location.origin,
      location.pathname,
      innerWidth,
      innerHeight,
      devicePixelRatio,
      matchMedia('(prefers-color-scheme: dark)').matches,
      scrollX,
      scrollY,
      focused ? [focused.tagName, [...document.querySelectorAll('*')].indexOf(focused)] : null,
      controls,
      rules,
      document.documentElement.outerHTML,
    ]);
  });
  return createHash('sha256').update(state).digest('hex');
}

/**
 * The serious and critical findings of axe-core in `target` (a page or a frame, e.g. a view);
 * a state this process audited before gets that audit's findings (see `audited`).
 */
export async function seriousFindings(target: Page | Frame): Promise<Finding[]> {
  const state = await stateOf(target);
  const known = audited.get(state);
  if (known) {
    audits.remembered++;
    return known;
  }
  const findings = await audit(target);
  audits.run++;
  audited.set(state, findings);
  return findings;
}

async function audit(target: Page | Frame): Promise<Finding[]> {
  const injected = await target.evaluate(() => 'axe' in window);
  if (!injected) await target.evaluate(AXE_SOURCE);
  return target.evaluate(async () => {
    type Result = {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: unknown[] }[];
      }[];
    };
    const axe = (
      window as unknown as { axe: { run(context: Document, options: object): Promise<Result> } }
    ).axe;
    // A long table's rows past the 25th, drawn by the same code as the first ones, are left out
    // (an audit of 500 rows took 5 to 14 s a run); a row marked otherwise (a correction) stays.
    const context = {
      include: [['html']],
      exclude: [['tbody tr:nth-child(n+26):not([class*="entry-"])']],
    };
    const result = await axe.run(context as unknown as Document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        rule: v.id,
        impact: v.impact ?? '',
        help: v.help,
        at: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')),
      }));
  });
}

/** Fails with axe-core's serious and critical findings in `target`, named by where it is. */
export async function assertAccessible(target: Page | Frame, where: string): Promise<void> {
  const findings = await seriousFindings(target);
  assert.deepEqual(findings, [], `${where}: ${JSON.stringify(findings, null, 2)}`);
}
