import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { type BarSpec, chartHeight, namesWidth, segments, steps, tick, usableLanguage, valueMax } from '../charts';

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
const AXIS = '#4a5568';
const GRID = { stroke: '#e2e8f0', width: 1 };

function options(Plot: Plot, spec: BarSpec, width: number): uPlot.Options {
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
  const line = spec.line;
  return {
    width,
    height: chartHeight(spec),
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    scales: {
      // Categories: index 0 first (on top when horizontal).
      x: { time: false, range: [-0.5, n - 0.5], ori: spec.horizontal ? 1 : 0, dir: spec.horizontal ? -1 : 1 },
      // Values grow rightwards, or upwards.
      v: { range: [0, valueMax(spec.format, ends)], ori: spec.horizontal ? 0 : 1, dir: 1 },
      ...(line ? { context: { range: [0, valueMax('count', line.values)] as uPlot.Range.MinMax } } : {}),
    },
    axes: [
      {
        scale: 'x',
        side: spec.horizontal ? 3 : 2,
        size: spec.horizontal ? namesWidth(spec.categories) : 32,
        splits: () => indices,
        values: (_u, splits) => splits.map((i) => spec.categories[i] ?? ''),
        grid: { show: false },
        ticks: { show: false },
        font: FONT,
        stroke: AXIS,
      },
      {
        scale: 'v',
        side: spec.horizontal ? 2 : 3,
        incrs: steps(spec.format),
        // Room for `100 %` and `1.5 min` between ticks.
        space: spec.horizontal ? 64 : 30,
        values: (_u, splits) => splits.map((v) => tick(spec.format, v)),
        grid: GRID,
        font: FONT,
        stroke: AXIS,
        size: spec.horizontal ? 32 : 60,
      },
      ...(line
        ? [{ scale: 'context', side: 1, incrs: steps('count'), grid: { show: false }, font: FONT, stroke: line.colour, size: 48 } as uPlot.Axis]
        : []),
    ],
    series: [
      {},
      ...bars,
      ...(line ? [{ label: line.label, stroke: line.colour, width: 2, scale: 'context', points: { show: true, size: 5 } }] : []),
    ],
  };
}

/** A bar chart drawn by uPlot on a canvas, with its legend as page text. */
export function Chart({ title, spec, testid }: { title: string; spec: BarSpec; testid: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
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
          ...(spec.line ? [spec.line.values] : []),
        ];
        plot = new Plot(options(Plot, spec, element.clientWidth), data, element);
        resize.observe(element);
        setFailed(null);
      })
      .catch((err: unknown) => setFailed(String(err)));
    return () => {
      gone = true;
      resize.disconnect();
      plot?.destroy();
    };
  }, [spec]);
  const legend = spec.line ? [...spec.series, spec.line] : spec.series;
  return (
    <figure class="chart" data-testid={testid}>
      <figcaption>{title}</figcaption>
      <div class="plot" ref={box} />
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
    </figure>
  );
}
