import '../styles/chart.css';
import { formatNumber } from './format.ts';

export interface Bar {
  /** What the bar stands for, as the axis shows it: a day, an emoji, a score. */
  readonly label: string;
  readonly value: number;
}

interface BarChartProps {
  /** The chart's name: its heading's text, and what a screen reader hears for the picture. */
  readonly title: string;
  readonly bars: readonly Bar[];
  /** What one unit counts ("views", "ratings"): read out with each value in the table. */
  readonly unit: string;
}

// The picture's own coordinates; it scales to its box through the viewBox.
const WIDTH = 640;
const HEIGHT = 200;
const AXIS = 24;
const GAP = 0.2;

/**
 * Vertical bars drawn in SVG from attributes only (the console's CSP allows no inline style), with the same
 * numbers in a table beside it: the picture is for the eye, the table for screen readers and for copying.
 */
export function BarChart({ title, bars, unit }: BarChartProps) {
  const top = Math.max(1, ...bars.map((bar) => bar.value));
  const slot = WIDTH / Math.max(1, bars.length);
  const plot = HEIGHT - AXIS;
  // Label only as many bars as fit: about one label per 48 units of width.
  const labelEvery = Math.max(1, Math.ceil(bars.length / Math.floor(WIDTH / 48)));
  return (
    <figure className="bar-chart">
      <figcaption>{title}</figcaption>
      {bars.length === 0 ? (
        <p className="state">Nothing to show yet.</p>
      ) : (
        <>
          <svg
            viewBox={`0 0 ${String(WIDTH)} ${String(HEIGHT)}`}
            role="img"
            aria-label={`${title}: ${bars.map((bar) => `${bar.label} ${formatNumber(bar.value)}`).join(', ')}`}
          >
            <line className="axis" x1={0} x2={WIDTH} y1={plot} y2={plot} />
            {bars.map((bar, index) => {
              const height = (bar.value / top) * (plot - 4);
              const x = index * slot + (slot * GAP) / 2;
              const width = slot * (1 - GAP);
              // The outermost labels align to their bar's outer edge, so they stay inside the picture.
              const anchor = index === 0 ? 'start' : index === bars.length - 1 ? 'end' : 'middle';
              const labelX = anchor === 'start' ? x : anchor === 'end' ? x + width : x + width / 2;
              return (
                <g key={bar.label}>
                  <rect className="bar" x={x} y={plot - height} width={width} height={height}>
                    <title>{`${bar.label}: ${formatNumber(bar.value)} ${unit}`}</title>
                  </rect>
                  {index % labelEvery === 0 && (
                    <text className="tick" x={labelX} y={HEIGHT - 6} textAnchor={anchor}>
                      {bar.label}
                    </text>
                  )}
                </g>
              );
            })}
          </svg>
          <details className="chart-numbers">
            <summary>Numbers</summary>
            <table>
              <thead>
                <tr>
                  <th scope="col">{title}</th>
                  <th scope="col">{unit}</th>
                </tr>
              </thead>
              <tbody>
                {bars.map((bar) => (
                  <tr key={bar.label}>
                    <th scope="row">{bar.label}</th>
                    <td>{formatNumber(bar.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </figure>
  );
}
