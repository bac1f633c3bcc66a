import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { api } from '../api';
import { useEffect, useState } from 'preact/hooks';
import { campaignLine, canResume, stageRows } from '../campaigns';
import { visible } from '../logic';
const load = () => api.campaigns();
const resume = (campaignId) => api.campaignResume(campaignId);
/** Fleet campaigns: each stage's batch and its repositories' outcomes; a stopped campaign can be resumed. */
export function Campaigns({ pendingCount }) {
    const [campaigns, setCampaigns] = useState([]);
    const [error, setError] = useState(null);
    const refresh = () => load()
        .then((list) => setCampaigns(list.campaigns))
        .catch((err) => setError(err.message));
    // The desk's pending count moves whenever a fleet approval opens or settles: refetch then.
    useEffect(() => void refresh(), [pendingCount]);
    const onResume = async (c) => {
        setError(null);
        try {
            await resume(c.campaign_id);
            await refresh();
        }
        catch (err) {
            setError(err.message);
        }
    };
    return (_jsxs("section", { class: "campaigns", "data-testid": "campaigns", children: [_jsx("button", { type: "button", onClick: () => void refresh(), children: "Refresh" }), error && _jsx("p", { class: "error", children: error }), campaigns.length === 0 && _jsx("p", { class: "empty", children: "No fleet campaigns." }), campaigns.map((c) => (_jsxs("article", { "data-testid": `campaign-${c.campaign_id}`, children: [_jsx("h2", { children: visible(c.campaign_id) }), _jsx("p", { class: "sub", children: visible(campaignLine(c)) }), canResume(c) && (_jsx("button", { type: "button", "data-testid": `resume-${c.campaign_id}`, onClick: () => void onResume(c), children: "Resume campaign" })), _jsx("table", { children: _jsx("tbody", { children: stageRows(c).map((s) => (_jsxs("tr", { children: [_jsxs("td", { children: ["Stage ", s.number] }), _jsx("td", { children: s.status }), _jsx("td", { children: s.repos.map((r) => `${visible(r.repo)}: ${r.outcome}`).join(' · ') })] }, s.number))) }) })] }, c.campaign_id)))] }));
}
