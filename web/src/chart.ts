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
import { h } from './dom.js';

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
  series: { label: string; values: (number | null)[] }[];
  /** Said to screen readers: the table beside the chart has the same figures. */
  title: string;
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

/**
 * Draws a chart. The Chart.js instance is kept on the canvas as `vmsChart`, so a test can read
 * what was drawn (its labels and data), not only that a canvas exists.
 */
export function drawChart(spec: ChartSpec): HTMLElement {
  const canvas = h('canvas', {
    role: 'img',
    'aria-label': `${spec.title} (the table has the figures)`,
  });
  const box = h('div', { class: 'chart' }, canvas);
  const chart = new Chart(canvas as HTMLCanvasElement, {
    type: spec.kind,
    data: {
      labels: spec.labels,
      datasets: spec.series.map((s, i) => ({
        label: s.label,
        data: s.values,
        borderColor: COLOURS[i % COLOURS.length],
        backgroundColor: COLOURS[i % COLOURS.length],
        borderWidth: 2,
        pointRadius: spec.labels.length > 60 ? 0 : 2,
      })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { legend: { display: spec.series.length > 1 } },
      scales: { y: { beginAtZero: true } },
    },
  });
  Object.defineProperty(canvas, 'vmsChart', { value: chart });
  return box;
}
