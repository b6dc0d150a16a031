import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import { storeContract } from './contract.ts'

storeContract('embedded (memory)', {
  open: (clock) => MemoryStore.open({ dataDir: null, clock }),
})
