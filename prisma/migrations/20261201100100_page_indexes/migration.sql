-- Page reads along indexes whose order is the page order: every items, events and proposals list
-- filter walks one of these in id order and stops at the page (docs/performance.md, Index reads).

-- CreateIndex
CREATE INDEX "Event_type_id_idx" ON "Event"("type", "id");

-- CreateIndex
CREATE INDEX "Item_status_id_idx" ON "Item"("status", "id");

-- CreateIndex
CREATE INDEX "Item_batchId_status_id_idx" ON "Item"("batchId", "status", "id");

-- CreateIndex
CREATE INDEX "Item_claimedBy_id_idx" ON "Item"("claimedBy", "id");

-- CreateIndex
CREATE INDEX "Proposal_state_id_idx" ON "Proposal"("state", "id");

-- CreateIndex
CREATE INDEX "Proposal_riskLevel_id_idx" ON "Proposal"("riskLevel", "id");

-- CreateIndex
CREATE INDEX "Proposal_proposedBy_id_idx" ON "Proposal"("proposedBy", "id");

-- CreateIndex
CREATE INDEX "Proposal_claimedBy_id_idx" ON "Proposal"("claimedBy", "id");

-- CreateIndex
CREATE INDEX "Proposal_targetSystem_id_idx" ON "Proposal"("targetSystem", "id");

-- CreateIndex
CREATE INDEX "Proposal_targetId_id_idx" ON "Proposal"("targetId", "id");

-- CreateIndex
CREATE INDEX "Proposal_batchId_id_idx" ON "Proposal"("batchId", "id");
