import '../styles/support.css';
import { useSearchParams } from 'react-router';
import { type Period, useCsatByDay } from '../api/analytics.ts';
import {
  CSAT_SCORES,
  CSAT_TARGET_TYPES,
  type CsatList,
  type CsatTargetType,
  useCsatRatings,
} from '../api/csat.ts';
import { can } from '../api/session.ts';
import { BarChart } from '../components/bar-chart.tsx';
import { CsatRatingList } from '../components/csat-ratings.tsx';
import { Field } from '../components/fields.tsx';
import { formatDay, formatDecimal, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { PeriodFilter, usePeriodParam } from '../components/period-filter.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

const targetLabels: Record<CsatTargetType, string> = {
  conversation: 'Conversations',
  ticket: 'Tickets',
};

const isTarget = (value: string | null): value is CsatTargetType =>
  CSAT_TARGET_TYPES.some((type) => type === value);

/** Two decimals at most: a bar's value is read out as it is. */
const rounded = (value: number) => Math.round(value * 100) / 100;

export function CsatPage() {
  const admin = useAdmin();
  if (!can(admin, 'csat.read')) return <NotAllowed what="read CSAT ratings" />;
  return <CsatReport trend={can(admin, 'analytics.read')} />;
}

/** The average, the distribution by score and, for a role that reads analytics, the trend by day. */
function CsatReport({ trend }: { readonly trend: boolean }) {
  const [period, setPeriod] = usePeriodParam();
  const [search, setSearch] = useSearchParams();
  const wanted = search.get('target');
  const targetType = isTarget(wanted) ? wanted : null;
  const ratings = useCsatRatings(period, targetType);
  const summary = ratings.data?.pages[0];
  return (
    <>
      <PageHeading>CSAT</PageHeading>
      <div className="filters">
        <PeriodFilter period={period} onChange={setPeriod} error={ratings.error} />
        <Field label="Rated">
          {(ids) => (
            <select
              {...ids}
              value={targetType ?? ''}
              onChange={(event) => {
                const next = new URLSearchParams(search);
                if (event.target.value === '') next.delete('target');
                else next.set('target', event.target.value);
                setSearch(next, { replace: true });
              }}
            >
              <option value="">Conversations and tickets</option>
              {CSAT_TARGET_TYPES.map((type) => (
                <option key={type} value={type}>
                  {targetLabels[type]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {ratings.isError ? <ErrorNotice error={ratings.error} /> : null}
      {summary === undefined ? (
        ratings.isPending ? (
          <Loading what="ratings" />
        ) : null
      ) : (
        <Summary summary={summary} />
      )}
      {trend ? <Trend period={period} byType={targetType !== null} /> : null}
      {summary === undefined || summary.count === 0 ? null : (
        <section aria-labelledby="csat-ratings" className="report-part">
          <h2 id="csat-ratings">Ratings, newest first</h2>
          <CsatRatingList ratings={ratings.data?.pages.flatMap((page) => page.items) ?? []} />
          {ratings.hasNextPage ? (
            <button
              type="button"
              className="load-more"
              disabled={ratings.isFetchingNextPage}
              onClick={() => {
                void ratings.fetchNextPage();
              }}
            >
              {ratings.isFetchingNextPage ? 'Loading…' : 'Show older ratings'}
            </button>
          ) : null}
        </section>
      )}
    </>
  );
}

function Summary({ summary }: { readonly summary: CsatList }) {
  if (summary.count === 0) {
    return (
      <Empty>
        <p>No rating in this period.</p>
        <p>Users rate a conversation once it is closed, and a ticket once it is resolved.</p>
      </Empty>
    );
  }
  return (
    <>
      <dl className="figures">
        <div>
          <dt>Average</dt>
          <dd>
            {summary.average === null ? '–' : formatDecimal(summary.average)}
            <span className="figure-unit"> out of 5</span>
          </dd>
        </div>
        <div>
          <dt>Ratings</dt>
          <dd>{formatNumber(summary.count)}</dd>
        </div>
      </dl>
      <BarChart
        title="Ratings by score"
        unit="ratings"
        bars={CSAT_SCORES.map((score) => ({
          label: score === 1 ? '1 star' : `${String(score)} stars`,
          value: summary.distribution[score],
        }))}
      />
    </>
  );
}

/** The trend by day (`GET /admin/analytics/csat`), which counts conversations and tickets together. */
function Trend({ period, byType }: { readonly period: Period; readonly byType: boolean }) {
  const days = useCsatByDay(period, true);
  if (days.data === undefined) {
    return days.isError ? <ErrorNotice error={days.error} /> : <Loading what="the trend" />;
  }
  if (days.data.count === 0) return null;
  const rated = days.data.series.filter((day) => day.average !== null);
  return (
    <section aria-labelledby="csat-trend" className="report-part">
      <h2 id="csat-trend">Trend</h2>
      {byType ? <p className="hint">By day, conversations and tickets count together.</p> : null}
      <BarChart
        title="Average rating by day"
        unit="stars on average"
        bars={rated.map((day) => ({ label: formatDay(day.day), value: rounded(day.average ?? 0) }))}
      />
      <BarChart
        title="Ratings by day"
        unit="ratings"
        bars={days.data.series.map((day) => ({ label: formatDay(day.day), value: day.count }))}
      />
    </section>
  );
}
