
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "AddCategoriesResult": [
      "AddCategoriesPayload",
      "UserError"
    ],
    "AddItemResult": [
      "AddItemPayload",
      "UserError"
    ],
    "AddItemsResult": [
      "AddItemsPayload",
      "UserError"
    ],
    "AssignProposalResult": [
      "AssignProposalPayload",
      "UserError"
    ],
    "CancelProposalResult": [
      "CancelProposalPayload",
      "UserError"
    ],
    "ClaimExecutionResult": [
      "ClaimExecutionPayload",
      "UserError"
    ],
    "ClaimItemResult": [
      "ClaimItemPayload",
      "UserError"
    ],
    "ClaimManualExecutionResult": [
      "ClaimManualExecutionPayload",
      "UserError"
    ],
    "ClaimProposalResult": [
      "ClaimProposalPayload",
      "UserError"
    ],
    "CreateApiKeyResult": [
      "CreateApiKeyPayload",
      "UserError"
    ],
    "DecideItemResult": [
      "DecideItemPayload",
      "UserError"
    ],
    "Error": [
      "UserError"
    ],
    "EscalateProposalResult": [
      "EscalateProposalPayload",
      "UserError"
    ],
    "HoldProposalResult": [
      "HoldProposalPayload",
      "UserError"
    ],
    "ItemLookupResult": [
      "Item",
      "UserError"
    ],
    "Node": [
      "Category",
      "Event",
      "Item",
      "Proposal"
    ],
    "ReconcileProposalResult": [
      "ReconcileProposalPayload",
      "UserError"
    ],
    "RecordManualExecutionResult": [
      "RecordManualExecutionPayload",
      "UserError"
    ],
    "ReleaseLeaseResult": [
      "ReleaseLeasePayload",
      "UserError"
    ],
    "ReleaseProposalLeaseResult": [
      "ReleaseProposalLeasePayload",
      "UserError"
    ],
    "RenewLeaseResult": [
      "RenewLeasePayload",
      "UserError"
    ],
    "RenewProposalLeaseResult": [
      "RenewProposalLeasePayload",
      "UserError"
    ],
    "ReportExecutionResultResult": [
      "ReportExecutionResultPayload",
      "UserError"
    ],
    "ReportTargetStateResult": [
      "ReportTargetStatePayload",
      "UserError"
    ],
    "ResumeProposalResult": [
      "ResumeProposalPayload",
      "UserError"
    ],
    "RetireCategoryResult": [
      "RetireCategoryPayload",
      "UserError"
    ],
    "ReviewExecutedProposalResult": [
      "ReviewExecutedProposalPayload",
      "UserError"
    ],
    "ReviewProposalResult": [
      "ReviewProposalPayload",
      "UserError"
    ],
    "RevokeApiKeyResult": [
      "RevokeApiKeyPayload",
      "UserError"
    ],
    "StartExecutionAttemptResult": [
      "StartExecutionAttemptPayload",
      "UserError"
    ],
    "SubmitProposalResult": [
      "SubmitProposalPayload",
      "UserError"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "AddCategoriesResult": [
      "AddCategoriesPayload",
      "UserError"
    ],
    "AddItemResult": [
      "AddItemPayload",
      "UserError"
    ],
    "AddItemsResult": [
      "AddItemsPayload",
      "UserError"
    ],
    "AssignProposalResult": [
      "AssignProposalPayload",
      "UserError"
    ],
    "CancelProposalResult": [
      "CancelProposalPayload",
      "UserError"
    ],
    "ClaimExecutionResult": [
      "ClaimExecutionPayload",
      "UserError"
    ],
    "ClaimItemResult": [
      "ClaimItemPayload",
      "UserError"
    ],
    "ClaimManualExecutionResult": [
      "ClaimManualExecutionPayload",
      "UserError"
    ],
    "ClaimProposalResult": [
      "ClaimProposalPayload",
      "UserError"
    ],
    "CreateApiKeyResult": [
      "CreateApiKeyPayload",
      "UserError"
    ],
    "DecideItemResult": [
      "DecideItemPayload",
      "UserError"
    ],
    "Error": [
      "UserError"
    ],
    "EscalateProposalResult": [
      "EscalateProposalPayload",
      "UserError"
    ],
    "HoldProposalResult": [
      "HoldProposalPayload",
      "UserError"
    ],
    "ItemLookupResult": [
      "Item",
      "UserError"
    ],
    "Node": [
      "Category",
      "Event",
      "Item",
      "Proposal"
    ],
    "ReconcileProposalResult": [
      "ReconcileProposalPayload",
      "UserError"
    ],
    "RecordManualExecutionResult": [
      "RecordManualExecutionPayload",
      "UserError"
    ],
    "ReleaseLeaseResult": [
      "ReleaseLeasePayload",
      "UserError"
    ],
    "ReleaseProposalLeaseResult": [
      "ReleaseProposalLeasePayload",
      "UserError"
    ],
    "RenewLeaseResult": [
      "RenewLeasePayload",
      "UserError"
    ],
    "RenewProposalLeaseResult": [
      "RenewProposalLeasePayload",
      "UserError"
    ],
    "ReportExecutionResultResult": [
      "ReportExecutionResultPayload",
      "UserError"
    ],
    "ReportTargetStateResult": [
      "ReportTargetStatePayload",
      "UserError"
    ],
    "ResumeProposalResult": [
      "ResumeProposalPayload",
      "UserError"
    ],
    "RetireCategoryResult": [
      "RetireCategoryPayload",
      "UserError"
    ],
    "ReviewExecutedProposalResult": [
      "ReviewExecutedProposalPayload",
      "UserError"
    ],
    "ReviewProposalResult": [
      "ReviewProposalPayload",
      "UserError"
    ],
    "RevokeApiKeyResult": [
      "RevokeApiKeyPayload",
      "UserError"
    ],
    "StartExecutionAttemptResult": [
      "StartExecutionAttemptPayload",
      "UserError"
    ],
    "SubmitProposalResult": [
      "SubmitProposalPayload",
      "UserError"
    ]
  }
};
      export default result;
    