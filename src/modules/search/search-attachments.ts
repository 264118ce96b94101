interface WithAttachments {
  attachments: string[];
}

interface SearchEnvelope {
  data: { reports: WithAttachments[]; publicReports: WithAttachments[] };
}

/** The search body with each report's upload ids replaced by signed download links. */
export function withSignedAttachments(body: string, links: (uploadIds: readonly string[]) => string[]): string {
  const envelope = JSON.parse(body) as SearchEnvelope;
  for (const report of [...envelope.data.reports, ...envelope.data.publicReports]) {
    if (report.attachments.length > 0) report.attachments = links(report.attachments);
  }
  return JSON.stringify(envelope);
}
