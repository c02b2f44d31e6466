/* placeholder: the hist module is being written */
