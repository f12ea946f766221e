import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { h } from '../dom.js';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

export interface ChartSpec {
  kind: 'line' | 'bar';
  /** Category or time labels, plain text (a canvas draws text; it cannot run it). */
  labels: string[];
  series: { label: string; values: (number | null)[]; previous?: boolean }[];
  /** Said to screen readers: the table beside the chart has the same figures. */
  title: string;
  /** The axis's numbers, formatted as the table formats them (ratios as percentages, money in its currency). */
  axis: (n: number) => string;
  /** A point's figure as the table shows it, for its tooltip. */
  value: (n: number) => string;
  /** Labels of buckets not complete yet or cut by the range: drawn hollow, the line to them dashed. */
  incomplete?: boolean[];
  /** Called with the index of a clicked bar or point (the explorer opens on it). */
  onPick?: (index: number, series: number) => void;
}

/** A palette that keeps contrast on white (each at least 3:1 against the background). */
const COLOURS = [
  '#1f5fa8',
  '#b5402b',
  '#2e7d32',
  '#7b3fa0',
  '#8a6100',
  '#00707a',
  '#a3245e',
  '#4b5563',
];

/** The same hues for a dark host (app.css `--paper` #1b1d21): each at least 3:1 against it. */
const DARK_COLOURS = [
  '#8ab4f8',
  '#f28b82',
  '#81c995',
  '#c58af9',
  '#fdd663',
  '#78d9ec',
  '#ff8bcb',
  '#bdc1c6',
];

/**
 * The colours of the theme the page is in: a dark host's (the MCP view, `data-theme="dark"` on
 * the root) or white's. Text, grid and the hollow points of incomplete periods follow the
 * style sheet's own colours.
 */
function themeColours() {
  const dark = document.documentElement.getAttribute('data-theme') === 'dark';
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    series: dark ? DARK_COLOURS : COLOURS,
    previous: dark ? { line: '#9aa0a6', fill: '#80868b' } : { line: '#6b7280', fill: '#9ca3af' },
    text: read('--muted', '#4a4a4a'),
    grid: read('--line', '#c9ccd1'),
    paper: read('--paper', '#ffffff'),
  };
}

/** Longest tick label drawn in full; longer ones end with an ellipsis (the table has them whole). */
const TICK_CHARS = 18;
const shortLabel = (label: string) =>
  label.length > TICK_CHARS ? `${label.slice(0, TICK_CHARS - 1)}…` : label;

/**
 * Draws a chart. The Chart.js instance is kept on the canvas as `vmsChart`, so a test can read
 * what was drawn (its labels and data), not only that a canvas exists. Category labels are
 * rotated when they do not fit side by side; where even rotated they would overlap (a 37-month
 * series on a phone), Chart.js draws every second, third… label, evenly, so the axis thins to
 * what fits at any width. The table beside the chart has every label.
 */
/** Half a tick label's line (12 px type, 1.2 line height), rounded up. */
const ROTATED_LABEL_SHIFT = 8;

export function drawChart(spec: ChartSpec): HTMLElement {
  const canvas = h('canvas', {
    role: 'img',
    'aria-label': `${spec.title} (the table has the figures)`,
  });
  const box = h('div', { class: 'chart' }, canvas);
  const incomplete = spec.incomplete ?? [];
  const dashed = (i: number) => incomplete[i] === true;
  const theme = themeColours();
  const chart = new Chart(canvas as HTMLCanvasElement, {
    type: spec.kind,
    data: {
      labels: spec.labels,
      datasets: spec.series.map((s, i) => {
        const colour = theme.series[i % theme.series.length];
        return {
          label: s.label,
          data: s.values,
          borderColor: s.previous ? theme.previous.line : colour,
          backgroundColor: s.previous ? theme.previous.fill : colour,
          borderWidth: 2,
          borderDash: s.previous ? [6, 4] : undefined,
          pointRadius: spec.labels.length > 60 ? 0 : 2,
          pointBackgroundColor: spec.labels.map((_, j) => (dashed(j) ? theme.paper : colour)),
          segment: {
            borderDash: (ctx: { p1DataIndex: number }) =>
              s.previous || dashed(ctx.p1DataIndex) ? [6, 4] : undefined,
          },
        };
      }),
    },
    options: {
      animation: false,
      color: theme.text,
      responsive: true,
      maintainAspectRatio: false,
      onClick: (_event, elements) => {
        const hit = elements[0];
        if (hit && spec.onPick) spec.onPick(hit.index, hit.datasetIndex);
      },
      plugins: {
        legend: { display: spec.series.length > 1 },
        tooltip: {
          callbacks: {
            title: (items) =>
              items.map(
                (item) =>
                  `${spec.labels[item.dataIndex]}${dashed(item.dataIndex) ? ' (incomplete)' : ''}`,
              ),
            label: (item) => `${item.dataset.label}: ${spec.value(Number(item.raw))}`,
          },
        },
      },
      scales: {
        x: {
          grid: { color: theme.grid },
          // Room for the first rotated label: Chart.js makes room for its width along the axis
          // but draws it from an anchor up to half a line (12 px type: 7.2 px) left of its tick,
          // so on a narrow chart its start fell off the canvas ("ek of 2026-03-30", issue 57).
          afterFit: (scale) => {
            if (scale.labelRotation > 0) scale.paddingLeft += ROTATED_LABEL_SHIFT;
          },
          ticks: {
            color: theme.text,
            autoSkip: true,
            autoSkipPadding: 4,
            maxRotation: 90,
            callback: (_value, index) =>
              `${shortLabel(spec.labels[index] ?? '')}${dashed(index) ? '*' : ''}`,
          },
        },
        y: {
          beginAtZero: true,
          grid: { color: theme.grid },
          ticks: { color: theme.text, callback: (value) => spec.axis(Number(value)) },
        },
      },
    },
  });
  Object.defineProperty(canvas, 'vmsChart', { value: chart });
  if (!incomplete.some(Boolean)) return box;
  return h(
    'div',
    {},
    box,
    h(
      'p',
      { class: 'note chart-note' },
      '* Incomplete period (dashed, drawn hollow): not over yet, or cut by the range.',
    ),
  );
}
