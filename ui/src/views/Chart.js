import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useEffect, useRef, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import { barEnds, chartHeight, fitNames, segments, steps, tick, timeTicks, usableLanguage, valueMax } from '../charts';
let loading = null;
/**
 * uPlot, loaded when a chart is first shown: whatever it does as it loads can break a chart,
 * never the rest of the window. It formats numbers in `navigator.language` and throws as it
 * loads if that is no language (`C` under LANG=C): such a page gets `en-US`.
 */
function loadPlot() {
    loading ??= (async () => {
        if (!usableLanguage(navigator.language))
            Object.defineProperty(navigator, 'language', { value: 'en-US' });
        return (await import('uplot')).default;
    })();
    return loading;
}
const FONT = "12px 'DejaVu Sans', system-ui, sans-serif";
const LABEL_FONT = "bold 12px 'DejaVu Sans', system-ui, sans-serif";
const AXIS = '#4a5568';
const GRID = { stroke: '#e2e8f0', width: 1 };
/**
 * The labels of the names axis as drawn at the plot's current size: time ticks thinned to fit
 * the plot's width, names cut to fit their axis. `drawn` keeps the last ones for the page.
 */
function namesOf(Plot, spec, u) {
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
function writeValues(Plot, spec, u) {
    const ctx = u.ctx;
    const px = Plot.pxRatio;
    const right = u.bbox.left + u.bbox.width;
    ctx.save();
    ctx.font = `${12 * px}px 'DejaVu Sans', system-ui, sans-serif`;
    ctx.textBaseline = 'middle';
    barEnds(spec).forEach((end, i) => {
        const text = tick(spec.format, end);
        const width = ctx.measureText(text).width;
        const x = u.valToPos(end, 'v', true);
        const y = u.valToPos(i, 'x', true);
        // Clear of the names axis at 0, clear of the bar's end after it.
        const gap = 8 * px;
        const inside = x + gap + width > right;
        ctx.fillStyle = inside ? '#ffffff' : AXIS;
        ctx.fillText(text, inside ? x - gap - width : x + gap, y);
    });
    ctx.restore();
}
function options(Plot, spec, width, drawn) {
    const n = spec.categories.length;
    const indices = spec.categories.map((_, i) => i);
    const segs = segments(spec);
    const ends = segs.flatMap((s) => s.to);
    const facet = (values) => ({
        unit: 1,
        values: () => values,
    });
    const bars = spec.series.map((series, i) => ({
        label: series.label,
        fill: series.colour,
        stroke: series.colour,
        width: 0,
        scale: 'v',
        points: { show: false },
        paths: Plot.paths.bars({
            // Overlaid bars narrow one after the other so each stays visible.
            size: [spec.layout === 'overlaid' ? 0.7 - 0.3 * i : 0.7, 56],
            disp: { y0: facet(segs[i].from), y1: facet(segs[i].to) },
        }),
    }));
    const line = spec.line;
    return {
        width,
        hooks: spec.horizontal ? { draw: [(u) => writeValues(Plot, spec, u)] } : {},
        height: chartHeight(spec),
        legend: { show: false },
        cursor: { show: false },
        select: { show: false, left: 0, top: 0, width: 0, height: 0 },
        scales: {
            // Categories: index 0 first (on top when horizontal).
            x: { time: false, range: [-0.5, n - 0.5], ori: spec.horizontal ? 1 : 0, dir: spec.horizontal ? -1 : 1 },
            // Values grow rightwards, or upwards.
            v: { range: [0, valueMax(spec.format, ends)], ori: spec.horizontal ? 0 : 1, dir: 1 },
            ...(line ? { context: { range: [0, valueMax('count', line.values)] } } : {}),
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
                label: spec.axes.values,
                labelSize: 20,
                labelFont: LABEL_FONT,
            },
            ...(line
                ? [
                    {
                        scale: 'context',
                        side: 1,
                        incrs: steps('count'),
                        grid: { show: false },
                        font: FONT,
                        stroke: line.colour,
                        size: 48,
                        label: spec.axes.line ?? line.label,
                        labelSize: 20,
                        labelFont: LABEL_FONT,
                    },
                ]
                : []),
        ],
        series: [
            {},
            ...bars,
            ...(line ? [{ label: line.label, stroke: line.colour, width: 2, scale: 'context', points: { show: true, size: 5 } }] : []),
        ],
    };
}
/** A bar's values in words, for the list read out in place of the canvas: "Approved 2, Denied 1"; "0" or "0 s" for none. */
function barWords(spec, i) {
    const parts = spec.series.filter((s) => (s.values[i] ?? 0) > 0).map((s) => `${s.label} ${tick(spec.format, s.values[i] ?? 0)}`);
    if (spec.line && (spec.line.values[i] ?? 0) > 0)
        parts.push(`${spec.line.label} ${spec.line.values[i]}`);
    return parts.length === 0 ? tick(spec.format, 0) : parts.join(', ');
}
/**
 * A bar chart drawn by uPlot on a canvas, with its legend as page text, and its numbers as a
 * list for screen readers. The names axis as drawn is on the figure (`data-ticks`), as the
 * width in CSS pixels of each bar's slot (`data-slot`), so a test can see the labels fit.
 */
export function Chart({ title, spec, testid }) {
    const box = useRef(null);
    const figure = useRef(null);
    const [failed, setFailed] = useState(null);
    useEffect(() => {
        const element = box.current;
        if (!element)
            return;
        let gone = false;
        let plot = null;
        const resize = new ResizeObserver(() => {
            if (plot && element.clientWidth !== plot.width)
                plot.setSize({ width: element.clientWidth, height: plot.height });
        });
        loadPlot()
            .then((Plot) => {
            if (gone)
                return;
            const data = [
                spec.categories.map((_, i) => i),
                ...segments(spec).map((s) => s.to),
                ...(spec.line ? [spec.line.values] : []),
            ];
            const drawn = (labels) => {
                if (!figure.current || !plot)
                    return;
                figure.current.dataset.ticks = JSON.stringify(labels);
                const along = spec.horizontal ? plot.bbox.height : plot.bbox.width;
                figure.current.dataset.slot = String(along / Plot.pxRatio / Math.max(1, spec.categories.length));
            };
            plot = new Plot(options(Plot, spec, element.clientWidth, drawn), data, element);
            // The first draw ran inside the constructor, before `plot` was set.
            plot.redraw(false, true);
            resize.observe(element);
            setFailed(null);
        })
            .catch((err) => setFailed(String(err)));
        return () => {
            gone = true;
            resize.disconnect();
            plot?.destroy();
        };
    }, [spec]);
    const legend = spec.line ? [...spec.series, spec.line] : spec.series;
    return (_jsxs("figure", { class: "chart", "data-testid": testid, "data-horizontal": spec.horizontal ? 'yes' : undefined, ref: figure, children: [_jsx("figcaption", { children: title }), _jsx("div", { class: "plot", ref: box, role: "img", "aria-label": `${title}: ${spec.axes.values} per ${spec.axes.names.toLowerCase()}`, "data-testid": "plot" }), failed && (_jsxs("p", { class: "error", "data-testid": "chart-error", children: ["Cannot draw this chart: ", failed] })), _jsx("ul", { class: "legend", "data-testid": "legend", children: legend.map((s) => (_jsxs("li", { children: [_jsx("span", { class: "swatch", style: { background: s.colour } }), s.label] }, s.label))) }), _jsx("ul", { class: "sr-only", "data-testid": "bars", children: spec.categories.map((c, i) => (_jsxs("li", { children: [c, ": ", barWords(spec, i)] }, i))) })] }));
}
