// The document GraphiQL opens with: seed A's tutorial as GraphQL operations, to run top to bottom.

export const TUTORIAL_DOCUMENT = `# Leasehold: seed A's tutorial as GraphQL operations. Run them in order with the ▶ button
# (it asks which one). Every request needs a key in the Headers pane below:
#   { "Authorization": "Bearer lhk_…" }
# 1. As the ADMIN (the key \`npm start\` printed on first run): CreateKeys, then SetUpCategories.
# 2. Put the "classifier" key from CreateKeys in Headers: AddItem.
# 3. Put the "tanaka" key in Headers: ClaimItem. Copy lease.token into the Variables pane as
#    {"token": "lh_…"} for RenewLease and DecideItem. (A reviewer never gets items it proposed.)

mutation CreateKeys {
  classifier: createApiKey(input: { name: "classifier", roles: [PROPOSER] }) {
    ... on CreateApiKeyPayload { key apiKey { id name roles } }
    ... on UserError { code field message }
  }
  tanaka: createApiKey(input: { name: "tanaka", roles: [REVIEWER] }) {
    ... on CreateApiKeyPayload { key apiKey { id name roles } }
    ... on UserError { code field message }
  }
}

mutation SetUpCategories {
  addCategories(input: { names: ["配送", "請求", "その他"] }) {
    ... on AddCategoriesPayload { categories { name } }
    ... on UserError { code field message }
  }
}

mutation AddItem {
  addItem(input: { batchId: "batch-20261005", recordId: "C-001", proposedCategory: "配送", reason: "提案カテゴリを元データと照合する" }) {
    ... on AddItemPayload { item { batchId recordId status claimState } }
    ... on UserError { code field message }
  }
}

mutation ClaimItem {
  claimItem(input: { leaseSeconds: 300 }) {
    ... on ClaimItemPayload {
      claimed
      serverTime
      item { batchId recordId proposedCategory reason claimedBy claimState }
      lease { token claimedBy claimedAt leaseExpiresAt }
    }
    ... on UserError { code field message }
  }
}

mutation RenewLease($token: String!) {
  renewLease(input: { token: $token, leaseSeconds: 300 }) {
    ... on RenewLeasePayload { serverTime item { leaseExpiresAt claimState } }
    ... on UserError { code field message }
  }
}

mutation DecideItem($token: String!) {
  decideItem(input: { token: $token, decision: CORRECTED, category: "請求" }) {
    ... on DecideItemPayload { item { batchId recordId status finalCategory reviewedBy } }
    ... on UserError { code field message }
  }
}

# Open a second GraphiQL tab, run WatchQueue there, then run the mutations above in this one.
subscription WatchQueue {
  queueEvents {
    sequence type actor occurredAt serverTime leaseExpiresAt
    item { batchId recordId status claimState claimedBy }
  }
}

query WhoAmI {
  viewer { name roles credential }
}

query ShowItem {
  item(batchId: "batch-20261005", recordId: "C-001") {
    ... on Item {
      batchId recordId status proposedCategory finalCategory reviewedBy claimedBy claimState
      history { edges { node { sequence type actor occurredAt details } } }
    }
    ... on UserError { code field message }
  }
}
`;
