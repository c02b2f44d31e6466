/* placeholder: the ring module is being written */
