
¶µ/host: