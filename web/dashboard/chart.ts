// The "last hour" chart: decisions and lease expiries in 5-minute bars, drawn as inline SVG (no library,
// nothing fetched), with a text summary for those who do not see it.

export type ChartEventType = 'ITEM_DECIDED' | 'LEASE_EXPIRED';

/** How far back the chart reaches (the first bucket may begin up to 5 minutes earlier). */
export const CHART_WINDOW_MS = 60 * 60 * 1000;
const BUCKETS = 12;
const BUCKET_MS = CHART_WINDOW_MS / BUCKETS;

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 300;
const HEIGHT = 140;
const PLOT = { left: 24, right: 4, top: 10, bottom: 24 };

export interface ChartCounts {
  decided: number[];
  expired: number[];
  /** Server time (epoch ms) where the first bucket begins. */
  start: number;
}

/** Which 5-minute bucket (of the clock, not of the page's life) an instant falls in. */
export const bucketOf = (at: number): number => Math.floor(at / BUCKET_MS);

/**
 * Counts per 5-minute bucket of the server clock: the last bucket is the one `now` is in, so bars only
 * move when a bucket ends, and the chart needs redrawing only then or when an event arrives.
 */
export function bucketize(events: Iterable<{ at: number; type: ChartEventType }>, now: number): ChartCounts {
  const first = bucketOf(now) - BUCKETS + 1;
  const decided = new Array<number>(BUCKETS).fill(0);
  const expired = new Array<number>(BUCKETS).fill(0);
  for (const event of events) {
    const index = bucketOf(event.at) - first;
    if (index < 0 || index >= BUCKETS) continue;
    const series = event.type === 'ITEM_DECIDED' ? decided : expired;
    series[index] = (series[index] ?? 0) + 1;
  }
  return { decided, expired, start: first * BUCKET_MS };
}

function element<K extends keyof SVGElementTagNameMap>(
  name: K,
  attributes: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name);
  for (const [attribute, value] of Object.entries(attributes)) node.setAttribute(attribute, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

const hoursMinutes = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const clock = (at: number): string => hoursMinutes.format(new Date(at));

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

/** Draws the chart into `container` (replacing what was there) and returns the one-line summary. */
export function renderChart(container: Element, counts: ChartCounts): string {
  const total = { decided: sum(counts.decided), expired: sum(counts.expired) };
  const summary = `Since ${clock(counts.start)}: ${total.decided} ${total.decided === 1 ? 'decision' : 'decisions'}, ${total.expired} lease ${
    total.expired === 1 ? 'expiry' : 'expiries'
  }.`;
  const max = Math.max(1, ...counts.decided, ...counts.expired);
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = plotWidth / BUCKETS;
  const barWidth = (slot - 4) / 2;
  const y = (value: number) => PLOT.top + plotHeight - (value / max) * plotHeight;

  const svg = element('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-labelledby': 'chart-svg-title chart-svg-desc',
    class: 'chart-svg',
  });
  svg.append(
    element('title', { id: 'chart-svg-title' }, 'Decisions and lease expiries per 5 minutes, last hour'),
    element('desc', { id: 'chart-svg-desc' }, summary),
  );
  svg.append(
    element('line', { x1: PLOT.left, x2: WIDTH - PLOT.right, y1: y(0), y2: y(0), class: 'chart-axis' }),
    element('line', { x1: PLOT.left, x2: WIDTH - PLOT.right, y1: y(max), y2: y(max), class: 'chart-grid' }),
    element('text', { x: PLOT.left - 4, y: y(max) + 4, 'text-anchor': 'end', class: 'chart-label' }, String(max)),
    element('text', { x: PLOT.left - 4, y: y(0) + 4, 'text-anchor': 'end', class: 'chart-label' }, '0'),
  );
  for (let index = 0; index < BUCKETS; index++) {
    const x = PLOT.left + index * slot + 2;
    const from = counts.start + index * BUCKET_MS;
    for (const [series, offset, name] of [
      [counts.decided, 0, 'decisions'],
      [counts.expired, barWidth, 'expiries'],
    ] as const) {
      const value = series[index] ?? 0;
      if (value === 0) continue;
      const bar = element('rect', {
        x: x + offset,
        y: y(value),
        width: barWidth,
        height: y(0) - y(value),
        class: name === 'decisions' ? 'bar-decided' : 'bar-expired',
      });
      bar.append(element('title', {}, `${value} ${name}, ${clock(from)}–${clock(from + BUCKET_MS)}`));
      svg.append(bar);
    }
  }
  const labelY = HEIGHT - 6;
  svg.append(
    element('text', { x: PLOT.left, y: labelY, class: 'chart-label' }, clock(counts.start)),
    element(
      'text',
      { x: PLOT.left + plotWidth / 2, y: labelY, 'text-anchor': 'middle', class: 'chart-label' },
      clock(counts.start + 6 * BUCKET_MS),
    ),
    element('text', { x: WIDTH - PLOT.right, y: labelY, 'text-anchor': 'end', class: 'chart-label' }, 'now'),
  );
  container.replaceChildren(svg);
  return summary;
}
