import '../styles/support.css';
import { type ConversationAnalytics, useConversationAnalytics } from '../api/analytics.ts';
import { can } from '../api/session.ts';
import { BarChart } from '../components/bar-chart.tsx';
import { formatDay, formatDuration, formatNumber } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { PeriodFilter, usePeriodParam } from '../components/period-filter.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';

export function AnalyticsPage() {
  const admin = useAdmin();
  if (!can(admin, 'analytics.read')) return <NotAllowed what="read analytics" />;
  return <ConversationReport />;
}

/** Conversations closed in a period: how many, how long they ran (median and p90), and per day. */
function ConversationReport() {
  const [period, setPeriod] = usePeriodParam();
  const report = useConversationAnalytics(period);
  return (
    <>
      <PageHeading>Conversation analytics</PageHeading>
      <div className="filters">
        <PeriodFilter period={period} onChange={setPeriod} error={report.error} />
      </div>
      {report.isError ? <ErrorNotice error={report.error} /> : null}
      {report.data === undefined ? (
        report.isPending ? (
          <Loading what="analytics" />
        ) : null
      ) : (
        <Figures report={report.data} />
      )}
    </>
  );
}

const durationOf = (seconds: number | null) => (seconds === null ? '–' : formatDuration(seconds));

function Figures({ report }: { readonly report: ConversationAnalytics }) {
  if (report.count === 0) {
    return (
      <Empty>
        <p>No conversation was closed in this period.</p>
        <p>A conversation counts on the day the team closes it.</p>
      </Empty>
    );
  }
  return (
    <>
      <dl className="figures">
        <div>
          <dt>Conversations closed</dt>
          <dd>{formatNumber(report.count)}</dd>
        </div>
        <div>
          <dt>Median duration</dt>
          <dd>{durationOf(report.medianSeconds)}</dd>
        </div>
        <div>
          <dt>90th percentile</dt>
          <dd>{durationOf(report.p90Seconds)}</dd>
        </div>
      </dl>
      <p className="hint">
        From the start of a conversation to its close. Nine conversations in ten took no longer than the 90th
        percentile. Days are UTC.
      </p>
      <BarChart
        title="Conversations closed by day"
        unit="conversations"
        bars={report.series.map((day) => ({ label: formatDay(day.day), value: day.count }))}
      />
    </>
  );
}
