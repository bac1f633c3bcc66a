import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { barEnds, type BarSpec, chartHeight, fitNames, placeValue, segments, steps, tick, timeTicks, usableLanguage, valueMax } from '../charts';

type Plot = typeof uPlot;
let loading: Promise<Plot> | null = null;

/**
 * uPlot, loaded when a chart is first shown: whatever it does as it loads can break a chart,
 * never the rest of the window. It formats numbers in `navigator.language` and throws as it
 * loads if that is no language (`C` under LANG=C): such a page gets `en-US`.
 */
function loadPlot(): Promise<Plot> {
  loading ??= (async () => {
    if (!usableLanguage(navigator.language)) Object.defineProperty(navigator, 'language', { value: 'en-US' });
    return (await import('uplot')).default;
  })();
  return loading;
}

const FONT = "12px 'DejaVu Sans', system-ui, sans-serif";
const LABEL_FONT = "bold 12px 'DejaVu Sans', system-ui, sans-serif";

/** The colours a canvas cannot take from the page's CSS by itself: the text and grid lines of
 * the light or dark scheme in force (`--fg-soft`, `--line`), so labels read in dark mode too. */
interface Ink {
  text: string;
  grid: string;
}

function inkOf(element: Element): Ink {
  const style = getComputedStyle(element);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return { text: read('--fg-soft', '#4a5568'), grid: read('--line', '#e2e8f0') };
}

const DARK = '(prefers-color-scheme: dark)';

/** Which scheme is in force, as state: a chart is drawn anew in the other scheme's ink. */
function useScheme(): boolean {
  const query = typeof matchMedia === 'function' ? matchMedia(DARK) : null;
  const [dark, setDark] = useState(query?.matches ?? false);
  useEffect(() => {
    if (!query) return;
    const change = () => setDark(query.matches);
    query.addEventListener('change', change);
    return () => query.removeEventListener('change', change);
  }, []);
  return dark;
}

/**
 * The labels of the names axis as drawn at the plot's current size: time ticks thinned to fit
 * the plot's width, names cut to fit their axis. `drawn` keeps the last ones for the page.
 */
function namesOf(Plot: Plot, spec: BarSpec, u: uPlot): string[] {
  if (spec.time) {
    const plotWidth = u.bbox.width > 0 ? u.bbox.width / Plot.pxRatio : u.width - 110;
    return timeTicks(spec.time, plotWidth);
  }
  return spec.horizontal ? fitNames(spec.categories, u.width).labels : spec.categories;
}

/**
 * Each bar's value written at its end ("2", "50 %", "3 min"), so a short bar — a prompt that
 * opened a second ago — still reads; inside the bar when there is no room after it.
 */
function writeValues(Plot: Plot, spec: BarSpec, ink: Ink, u: uPlot) {
  const ctx = u.ctx;
  const px = Plot.pxRatio;
  const right = u.bbox.left + u.bbox.width;
  ctx.save();
  ctx.font = `${12 * px}px 'DejaVu Sans', system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  // uPlot leaves the alignment of its last axis label (centred) on the context: the value's
  // x is its left edge, or half of it would be drawn over the bar.
  ctx.textAlign = 'left';
  const start = u.valToPos(0, 'v', true);
  barEnds(spec).forEach((end, i) => {
    const text = tick(spec.format, end);
    const place = placeValue(start, u.valToPos(end, 'v', true), ctx.measureText(text).width, right, 8 * px);
    ctx.fillStyle = place.inside ? '#ffffff' : ink.text;
    ctx.fillText(text, place.x, u.valToPos(i, 'x', true));
  });
  ctx.restore();
}

function options(Plot: Plot, spec: BarSpec, width: number, ink: Ink, drawn: (labels: string[]) => void): uPlot.Options {
  const n = spec.categories.length;
  const indices = spec.categories.map((_, i) => i);
  const segs = segments(spec);
  const ends = segs.flatMap((s) => s.to);
  const facet = (values: number[]): uPlot.Series.BarsPathBuilderFacet => ({
    unit: 1 as uPlot.Series.BarsPathBuilderFacetUnit,
    values: () => values,
  });
  const bars: uPlot.Series[] = spec.series.map((series, i) => ({
    label: series.label,
    fill: series.colour,
    stroke: series.colour,
    width: 0,
    scale: 'v',
    points: { show: false },
    paths: Plot.paths.bars!({
      // Overlaid bars narrow one after the other so each stays visible.
      size: [spec.layout === 'overlaid' ? 0.7 - 0.3 * i : 0.7, 56],
      disp: { y0: facet(segs[i]!.from), y1: facet(segs[i]!.to) },
    }),
  }));
  return {
    width,
    hooks: spec.horizontal ? { draw: [(u: uPlot) => writeValues(Plot, spec, ink, u)] } : {},
    height: chartHeight(spec),
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    scales: {
      // Categories: index 0 first (on top when horizontal).
      x: { time: false, range: [-0.5, n - 0.5], ori: spec.horizontal ? 1 : 0, dir: spec.horizontal ? -1 : 1 },
      // Values grow rightwards, or upwards.
      v: { range: [0, valueMax(spec.format, ends)], ori: spec.horizontal ? 0 : 1, dir: 1 },
    },
    axes: [
      {
        scale: 'x',
        side: spec.horizontal ? 3 : 2,
        size: (u) => (spec.horizontal ? fitNames(spec.categories, u.width).size : 32),
        splits: () => indices,
        values: (u, splits) => {
          const labels = namesOf(Plot, spec, u);
          drawn(labels);
          return splits.map((i) => labels[i] ?? '');
        },
        label: spec.axes.names,
        labelSize: 20,
        labelFont: LABEL_FONT,
        grid: { show: false },
        ticks: { show: false },
        font: FONT,
        stroke: ink.text,
      },
      {
        scale: 'v',
        side: spec.horizontal ? 2 : 3,
        incrs: steps(spec.format),
        // Room for `100 %` and `1.5 min` between ticks.
        space: spec.horizontal ? 64 : 30,
        values: (_u, splits) => splits.map((v) => tick(spec.format, v)),
        grid: { stroke: ink.grid, width: 1 },
        ticks: { stroke: ink.grid, width: 1 },
        font: FONT,
        stroke: ink.text,
        size: spec.horizontal ? 32 : 60,
        label: spec.axes.values,
        labelSize: 20,
        labelFont: LABEL_FONT,
      },
    ],
    series: [
      {},
      ...bars,
    ],
  };
}

/** A bar's values in words, for the list read out in place of the canvas: "Approved 2, Denied 1"; "0" or "0 s" for none. */
function barWords(spec: BarSpec, i: number): string {
  const parts = spec.series.filter((s) => (s.values[i] ?? 0) > 0).map((s) => `${s.label} ${tick(spec.format, s.values[i] ?? 0)}`);
  return parts.length === 0 ? tick(spec.format, 0) : parts.join(', ');
}

/**
 * A bar chart drawn by uPlot on a canvas, with its legend as page text, and its numbers as a
 * list for screen readers. The names axis as drawn is on the figure (`data-ticks`), as the
 * width in CSS pixels of each bar's slot (`data-slot`), so a test can see the labels fit.
 */
export function Chart({ title, spec, testid }: { title: string; spec: BarSpec; testid: string }) {
  const box = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const dark = useScheme();
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let gone = false;
    let plot: uPlot | null = null;
    const resize = new ResizeObserver(() => {
      if (plot && element.clientWidth !== plot.width) plot.setSize({ width: element.clientWidth, height: plot.height });
    });
    loadPlot()
      .then((Plot) => {
        if (gone) return;
        const data: uPlot.AlignedData = [
          spec.categories.map((_, i) => i),
          ...segments(spec).map((s) => s.to),
        ];
        const drawn = (labels: string[]) => {
          if (!figure.current || !plot) return;
          figure.current.dataset.ticks = JSON.stringify(labels);
          const along = spec.horizontal ? plot.bbox.height : plot.bbox.width;
          figure.current.dataset.slot = String(along / Plot.pxRatio / Math.max(1, spec.categories.length));
        };
        plot = new Plot(options(Plot, spec, element.clientWidth, inkOf(element), drawn), data, element);
        // The first draw ran inside the constructor, before `plot` was set.
        plot.redraw(false, true);
        resize.observe(element);
        setFailed(null);
      })
      .catch((err: unknown) => setFailed(String(err)));
    return () => {
      gone = true;
      resize.disconnect();
      plot?.destroy();
    };
  }, [spec, dark]);
  const legend = spec.series;
  return (
    <figure class="chart" data-testid={testid} data-horizontal={spec.horizontal ? 'yes' : undefined} ref={figure}>
      <figcaption>{title}</figcaption>
      <div class="plot" ref={box} role="img" aria-label={`${title}: ${spec.axes.values} per ${spec.axes.names.toLowerCase()}`} data-testid="plot" />
      {failed && (
        <p class="error" data-testid="chart-error">
          Cannot draw this chart: {failed}
        </p>
      )}
      <ul class="legend" data-testid="legend">
        {legend.map((s) => (
          <li key={s.label}>
            <span class="swatch" style={{ background: s.colour }} />
            {s.label}
          </li>
        ))}
      </ul>
      <ul class="sr-only" data-testid="bars">
        {spec.categories.map((c, i) => (
          <li key={i}>
            {c}: {barWords(spec, i)}
          </li>
        ))}
      </ul>
    </figure>
  );
}
