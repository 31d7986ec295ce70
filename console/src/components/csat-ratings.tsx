import '../styles/support.css';
import type { CsatRating } from '../api/csat.ts';
import { formatDateTime } from './format.ts';

const targetLabels: Record<CsatRating['targetType'], string> = {
  conversation: 'Conversation',
  ticket: 'Ticket',
};

/** Stars for the eye, "4 of 5" for a screen reader. */
export function Stars({ rating }: { readonly rating: number }) {
  return (
    <span className="stars" role="img" aria-label={`${String(rating)} of 5`}>
      {'★'.repeat(rating)}
      {'☆'.repeat(Math.max(0, 5 - rating))}
    </span>
  );
}

/** Ratings one by one: the score, the user's comment, what was rated and when. */
export function CsatRatingList({ ratings }: { readonly ratings: readonly CsatRating[] }) {
  return (
    <ul className="cards rating-list">
      {ratings.map((rating) => (
        <li key={rating.id} className="card">
          <p className="rating-score">
            <Stars rating={rating.rating} />
          </p>
          {rating.comment === null ? (
            <p className="state">No comment.</p>
          ) : (
            <p className="description">{rating.comment}</p>
          )}
          <dl className="facts">
            <div>
              <dt>{targetLabels[rating.targetType]}</dt>
              <dd>{rating.targetId}</dd>
            </div>
            <div>
              <dt>User</dt>
              <dd>{rating.userId}</dd>
            </div>
            <div>
              <dt>Rated</dt>
              <dd>{formatDateTime(rating.ratedAt)}</dd>
            </div>
          </dl>
        </li>
      ))}
    </ul>
  );
}
