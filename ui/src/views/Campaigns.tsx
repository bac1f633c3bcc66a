import { api } from '../api';
import { useEffect, useState } from 'preact/hooks';
import { type Campaign, type CampaignList, campaignLine, canResume, stageRows } from '../campaigns';
import { visible } from '../text';
import type { CommandError } from '../types';

const load = (): Promise<CampaignList> => api.campaigns();
const resume = (campaignId: string) => api.campaignResume(campaignId);

/** Fleet campaigns: each stage's batch and its repositories' outcomes; a stopped campaign can be resumed. */
export function Campaigns({ pendingCount }: { pendingCount: number }) {
  const [campaigns, setCampaigns] = useState<Campaign[]>([]);
  const [error, setError] = useState<string | null>(null);

  const refresh = () =>
    load()
      .then((list) => setCampaigns(list.campaigns))
      .catch((err: unknown) => setError((err as CommandError).message));
  // The desk's pending count moves whenever a fleet approval opens or settles: refetch then.
  useEffect(() => void refresh(), [pendingCount]);

  const onResume = async (c: Campaign) => {
    setError(null);
    try {
      await resume(c.campaign_id);
      await refresh();
    } catch (err) {
      setError((err as CommandError).message);
    }
  };

  return (
    <section class="campaigns" data-testid="campaigns">
      <button type="button" onClick={() => void refresh()}>
        Refresh
      </button>
      {error && <p class="error">{error}</p>}
      {campaigns.length === 0 && <p class="empty">No fleet campaigns.</p>}
      {campaigns.map((c) => (
        <article key={c.campaign_id} data-testid={`campaign-${c.campaign_id}`}>
          <h2>{visible(c.campaign_id)}</h2>
          <p class="sub">{visible(campaignLine(c))}</p>
          {canResume(c) && (
            <button type="button" data-testid={`resume-${c.campaign_id}`} onClick={() => void onResume(c)}>
              Resume campaign
            </button>
          )}
          <table>
            <tbody>
              {stageRows(c).map((s) => (
                <tr key={s.number}>
                  <td>Stage {s.number}</td>
                  <td>{s.status}</td>
                  <td>{s.repos.map((r) => `${visible(r.repo)}: ${r.outcome}`).join(' · ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </article>
      ))}
    </section>
  );
}
