"""The record layout of the iq router's state (:mod:`sim.routers._iq`), in one
module so the router and BookSim2's routing functions
(:mod:`sim.routing._booksim`, which write a head's route set into its VC's
row) read the same columns.
"""

# Records. What one flit's hop touches is kept together (at 65,536 routers the
# state is far larger than the caches and every array read at a random index
# is a cache miss): an input VC's row of ``vcr`` (int32) holds its scalars,
# its B buffer slots (packet, flit index, arrival cycle) and its route set
# (R entries of port, first VC, last VC, priority; from ``net.rt0``); a
# packet's row of ``pkr`` (int32) its fields; an output VC's row of ``ovr``
# (int32) its owner, credits and VC allocator pointer.
F_HEAD = 0
F_CNT = 1
F_STATE = 2
F_T = 3
F_OUT = 4
F_RTN = 5
F_AAPTR = 6
F_IP = 7           # the VC's input port (g // V without a division)
F_FB = 8
K_DST = 0
K_LEN = 1
K_SRC = 2
K_TGEN = 3
K_TINJ = 4
K_HOPS = 5
K_DIR = 6
K_DIM = 7
K_PH = 8
K_REC = 9
K_INTM = 10
K_VPH = 11
K_DR = 12          # the destination's router
K_DC = 13          # its coordinates (net.dcp: 3 dimensions or fewer), so a hop's route reads no other row
NK = 16            # a packet's row: one 64-byte line
O_OWNER = 0
O_CRED = 1
O_GPTR = 2
O_PORT = 3         # the VC's output port (o // V without a division)
NOVF = 4

# a port's row of ``net.ipr`` / ``net.opr`` (int32): its facts and its switch allocator's round-robin pointers
P_ROUTER = 0
P_LAT = 1          # latency of the channel into it
P_UP = 2           # the output port upstream
P_INJ = 3          # 1: a terminal's injection port
P_SAAPTR = 4       # switch allocator: accept pointer
P_SWRR = 5         # the VC after the last one that won the switch
P_UROUTER = 6      # the router upstream (a terminal's injection port: its router)
Q_ROUTER = 0
Q_LAT = 1
Q_DOWN = 2         # the input port downstream (-1: an ejection port)
Q_DIM = 3          # dimension of a link's port (-1: a terminal's)
Q_SAGPTR = 4       # switch allocator: grant pointer
Q_ARC = 5          # the arc of a link's port (-1: a terminal's)
Q_DROUTER = 6      # the router downstream (-1: an ejection port)
NPORT = 8
